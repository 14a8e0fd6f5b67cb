/**
 * The part of the runtime configuration that is sent to the browser. Nothing
 * secret may ever be added here: the server builds it field by field from the
 * validated environment (server/config/env.ts) and tests assert that no
 * secret-looking value reaches the page.
 */
export interface PublicConfig {
  siteName: string;
  /** Base URL for the browser's HTTP client; "/" means same origin. */
  apiBaseUrl: string;
  /** Target of the error screen's 'Back to Home' button. */
  oldBaseUrl: string;
  botCheckSiteKey: string | null;
  tagManagerIds: string[];
  supportEmail: string;
  /** Origins that links may navigate to without being blocked. */
  allowedExternalOrigins: string[];
}

export interface BuildInfo {
  id: string;
  timestamp: number;
}

export interface BuildManifest extends BuildInfo {
  routes: string[];
  prerendered: string[];
}

/** What the server injects into every page, read once by the client entry. */
export interface BootState {
  config: PublicConfig;
  build: BuildInfo;
}

export const BOOT_STATE_GLOBAL = "__THREAT_RADAR__";

declare global {
  interface Window {
    [BOOT_STATE_GLOBAL]?: BootState;
  }
}
