import { randomBytes } from "node:crypto";
import type { RequestHandler, Response } from "express";
import helmet from "helmet";
import type { PublicConfig } from "../../shared/config/public-config";

/** reCAPTCHA through its alternate domain, as Google documents for CSP. */
export const BOT_CHECK_SCRIPT_ORIGINS = ["https://www.recaptcha.net", "https://www.gstatic.com"];
export const BOT_CHECK_FRAME_ORIGINS = ["https://www.recaptcha.net", "https://recaptcha.net"];
export const TAG_MANAGER_ORIGINS = ["https://www.googletagmanager.com"];
const ANALYTICS_ORIGINS = ["https://*.google-analytics.com", "https://*.analytics.google.com", "https://*.googletagmanager.com"];

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
          ...(botCheck ? BOT_CHECK_SCRIPT_ORIGINS : []),
          ...(tagManager ? TAG_MANAGER_ORIGINS : []),
        ],
        scriptSrcAttr: ["'none'"],
        styleSrc: ["'self'", "'unsafe-inline'"],
        imgSrc: ["'self'", "data:", "blob:", ...(tagManager ? ANALYTICS_ORIGINS : [])],
        connectSrc: [
          "'self'",
          ...apiOrigin,
          ...(botCheck ? BOT_CHECK_SCRIPT_ORIGINS : []),
          ...(tagManager ? ANALYTICS_ORIGINS : []),
          ...(dev ? ["ws:", "wss:"] : []),
        ],
        frameSrc: botCheck ? BOT_CHECK_FRAME_ORIGINS : ["'none'"],
        frameAncestors: ["'none'"],
        formAction: ["'self'"],
        objectSrc: ["'none'"],
        baseUri: ["'self'"],
        upgradeInsecureRequests: null,
      },
    },
    crossOriginEmbedderPolicy: false,
    strictTransportSecurity: dev ? false : undefined,
  });
}
