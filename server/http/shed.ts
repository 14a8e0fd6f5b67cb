import type { Request, RequestHandler, Response } from "express";
import type { Logger } from "pino";
import type { ShedReason } from "./admission";

/** Seconds a turned-away client is asked to wait: long enough for a burst to drain. */
export const RETRY_AFTER_SECONDS = 2;
export const BUSY_MESSAGE = "The server is busy; try again in a few seconds.";

export interface ShedOptions {
  pages: RequestHandler;
  payloads: RequestHandler;
  logger: Logger;
}

/**
 * How an overloaded server says no: 503 with Retry-After, as JSON for API
 * clients and as the error screen for people (from the page cache: turning
 * requests away must cost almost nothing).
 */
export function shedHandler({ pages, payloads, logger }: ShedOptions) {
  let shedSinceLog = 0;
  let lastLog = 0;
  return (req: Request, res: Response, reason: ShedReason): void => {
    shedSinceLog += 1;
    const now = Date.now();
    // One line per second at most, however many requests are turned away.
    if (now - lastLog >= 1_000) {
      logger.warn({ shed: shedSinceLog, reason }, "overloaded: turning requests away with 503");
      shedSinceLog = 0;
      lastLog = now;
    }
    res.set("Retry-After", String(RETRY_AFTER_SECONDS));
    if (req.originalUrl.startsWith("/api/")) {
      res.status(503).json({ error: { statusCode: 503, message: BUSY_MESSAGE } });
      return;
    }
    res.locals.forcedError = { status: 503, message: BUSY_MESSAGE };
    const plain = () => {
      if (!res.headersSent) res.status(503).type("text/plain").send(BUSY_MESSAGE);
    };
    payloads(req, res, () => pages(req, res, plain));
  };
}
