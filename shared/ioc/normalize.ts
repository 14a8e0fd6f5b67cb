/**
 * Public entry point for indicator handling, shared by the server (feed
 * import, API) and the browser (search box, bulk lookup). Everything here is
 * pure and free of Node-only APIs.
 */
export type { Indicator, IndicatorType } from "./types";
export { INDICATOR_TYPES } from "./types";
export { refang } from "./refang";
export { normalizeIndicator, MAX_INDICATOR_LENGTH } from "./detect";
export { defang } from "./defang";
export { extractIndicators, DEFAULT_EXTRACT_LIMIT } from "./extract";
export { hostOf, registrableDomain, ipv4Slash24 } from "./host";
