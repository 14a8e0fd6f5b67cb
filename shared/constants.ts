/** Business constants of the application shell (app-shell spec, section 9). */

/** Screen breakpoints in CSS pixels, shared by the layout, the CSS and the charts. */
export const BREAKPOINTS = { sm: 600, md: 1024, lg: 1440, xl: 1920 } as const;
export type Breakpoint = keyof typeof BREAKPOINTS;

export const LOCALE = "en-US";

export const BUILD_CHECK_INTERVAL_MS = 3_600_000;
export const MANIFEST_PREFETCH_DELAY_MS = 1_000;
export const CHUNK_RELOAD_GUARD_MS = 10_000;
/** The loading indicator only appears when a navigation takes longer than this. */
export const ROUTE_CHANGE_DELAY_MS = 100;

export const CHART_RESIZE_DEBOUNCE_MS = 150;
export const CHART_ANIMATION_MAX_POINTS = 50;

export const RATE_LIMIT_STATUS = 429;

/** Where the shell's build endpoints live, relative to the site root. */
export const BUILDS_PATH = "/_app/builds";
export const PAYLOAD_FILE = "_payload.json";
