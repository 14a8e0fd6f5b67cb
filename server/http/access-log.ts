import type { RequestHandler } from "express";
import type { Logger } from "pino";

/**
 * One structured line per request, written when the response has gone out;
 * a request whose client left before that gets one debug line instead.
 */
export function accessLog(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    const ms = () => Number(process.hrtime.bigint() - started) / 1e6;
    res.once("finish", () => {
      logger.info({ method: req.method, url: req.originalUrl, status: res.statusCode, ms: ms() }, "request");
    });
    res.once("close", () => {
      if (!res.writableFinished) logger.debug({ method: req.method, url: req.originalUrl, ms: ms() }, "client went away");
    });
    next();
  };
}
