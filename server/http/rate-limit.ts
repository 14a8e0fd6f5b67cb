import type { RequestHandler } from "express";
import { rateLimit } from "express-rate-limit";
import { RATE_LIMIT_STATUS } from "../../shared/constants";

interface LimitOptions {
  windowMs: number;
  limit: number;
}

/** API clients get a JSON 429 naming the limit. */
export function apiRateLimit({ windowMs, limit }: LimitOptions): RequestHandler {
  return rateLimit({
    windowMs,
    limit,
    standardHeaders: "draft-8",
    legacyHeaders: false,
    statusCode: RATE_LIMIT_STATUS,
    handler: (_req, res) => {
      res.status(RATE_LIMIT_STATUS).json({
        error: { statusCode: RATE_LIMIT_STATUS, message: `Rate limit of ${limit} requests per ${windowMs / 1000} s exceeded; try again later.` },
      });
    },
  });
}

/**
 * People get the 429 error screen: the request carries on to the page
 * renderer, flagged, and no page data is loaded for it.
 */
export function pageRateLimit({ windowMs, limit }: LimitOptions): RequestHandler {
  return rateLimit({
    windowMs,
    limit,
    standardHeaders: "draft-8",
    legacyHeaders: false,
    handler: (_req, res, next) => {
      res.locals.rateLimited = true;
      next();
    },
  });
}

declare module "express-serve-static-core" {
  interface Locals {
    rateLimited?: boolean;
  }
}
