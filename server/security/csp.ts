import { randomBytes } from "node:crypto";
import type { RequestHandler, Response } from "express";
import helmet from "helmet";
import type { PublicConfig } from "../../shared/config/public-config";

/**
 * reCAPTCHA v3 through its alternate domain (docs/decisions/0003): api.js is
 * served by www.recaptcha.net and loads the rest of reCAPTCHA's code from
 * www.gstatic.com/recaptcha/; tokens are made in an iframe on
 * www.recaptcha.net, and its script may call its own endpoints from the page.
 * Google's CSP advice for reCAPTCHA, with www.recaptcha.net for www.google.com.
 */
export const BOT_CHECK_SCRIPT_SOURCES = ["https://www.recaptcha.net/recaptcha/", "https://www.gstatic.com/recaptcha/"] as const;
export const BOT_CHECK_FRAME_SOURCES = ["https://www.recaptcha.net/recaptcha/"] as const;
export const BOT_CHECK_CONNECT_SOURCES = ["https://www.recaptcha.net/recaptcha/"] as const;
/** The tag manager's script (gtm.js and the gtag.js it adds for analytics tags). */
export const TAG_MANAGER_SCRIPT_SOURCES = ["https://www.googletagmanager.com"] as const;
/** Where analytics tags send their hits (images and beacons). */
export const ANALYTICS_SOURCES = ["https://*.google-analytics.com", "https://*.analytics.google.com", "https://*.googletagmanager.com"] as const;

declare module "express-serve-static-core" {
  interface Locals {
    cspNonce: string;
  }
}

export const assignNonce: RequestHandler = (_req, res, next) => {
  res.locals.cspNonce = randomBytes(16).toString("base64");
  next();
};

interface CspOptions {
  config: PublicConfig;
  /** Vite's dev server needs a websocket for hot reloading. */
  dev: boolean;
}

/**
 * helmet with a nonce-based script policy. Scripts run only with this
 * request's nonce or from the third-party origins the configuration enables;
 * there is no 'unsafe-inline' for scripts.
 */
export function securityHeaders({ config, dev }: CspOptions): RequestHandler {
  const botCheck = config.botCheckSiteKey !== null;
  const tagManager = config.tagManagerIds.length > 0;
  const apiOrigin = URL.canParse(config.apiBaseUrl) ? [new URL(config.apiBaseUrl).origin] : [];
  return helmet({
    contentSecurityPolicy: {
      useDefaults: true,
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: [
          "'self'",
          (_req, res) => `'nonce-${(res as unknown as Response).locals.cspNonce}'`,
          ...(botCheck ? BOT_CHECK_SCRIPT_SOURCES : []),
          ...(tagManager ? TAG_MANAGER_SCRIPT_SOURCES : []),
        ],
        scriptSrcAttr: ["'none'"],
        styleSrc: ["'self'", "'unsafe-inline'"],
        imgSrc: ["'self'", "data:", "blob:", ...(tagManager ? ANALYTICS_SOURCES : [])],
        connectSrc: [
          "'self'",
          ...apiOrigin,
          ...(botCheck ? BOT_CHECK_CONNECT_SOURCES : []),
          ...(tagManager ? ANALYTICS_SOURCES : []),
          ...(dev ? ["ws:", "wss:"] : []),
        ],
        frameSrc: botCheck ? [...BOT_CHECK_FRAME_SOURCES] : ["'none'"],
        frameAncestors: ["'none'"],
        formAction: ["'self'"],
        objectSrc: ["'none'"],
        baseUri: ["'self'"],
        upgradeInsecureRequests: null,
      },
    },
    crossOriginEmbedderPolicy: false,
    // Agrees with frame-ancestors 'none' for browsers that only know the older header.
    xFrameOptions: { action: "deny" },
    strictTransportSecurity: dev ? false : undefined,
  });
}
