import type { Request, RequestHandler } from "express";
import { rateLimit, type Store } from "express-rate-limit";
import { RATE_LIMIT_STATUS } from "../../shared/constants";

interface LimitOptions {
  windowMs: number;
  limit: number;
  /** Where hits are counted: this process's memory by default (one node, SQLite); PostgreSQL to share them across nodes. */
  store?: Store;
}

/** Makes the store of one named limiter; none means each process counts in its own memory. */
export type RateLimitStores = ((name: string) => Store) | undefined;

/**
 * A request whose client has already gone has no address any more; there is
 * nobody to limit (or answer), so it is not counted.
 */
const clientGone = (req: Request) => req.ip === undefined;

/** API clients get a JSON 429 naming the limit. */
export function apiRateLimit({ windowMs, limit, store }: LimitOptions): RequestHandler {
  return rateLimit({
    windowMs,
    limit,
    store,
    // A shared store that cannot be reached (PostgreSQL restarting) lets requests through rather than failing them.
    passOnStoreError: true,
    standardHeaders: "draft-8",
    legacyHeaders: false,
    statusCode: RATE_LIMIT_STATUS,
    skip: clientGone,
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
export function pageRateLimit({ windowMs, limit, store }: LimitOptions): RequestHandler {
  return rateLimit({
    windowMs,
    limit,
    store,
    // A shared store that cannot be reached (PostgreSQL restarting) lets requests through rather than failing them.
    passOnStoreError: true,
    standardHeaders: "draft-8",
    legacyHeaders: false,
    skip: clientGone,
    handler: (_req, res, next) => {
      res.locals.forcedError = { status: RATE_LIMIT_STATUS, message: "Too many requests" };
      next();
    },
  });
}

declare module "express-serve-static-core" {
  interface Locals {
    /** Answer with this error screen (or error payload) without loading any page data. */
    forcedError?: { status: number; message: string };
  }
}
