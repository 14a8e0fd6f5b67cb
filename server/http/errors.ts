import type { ErrorRequestHandler, RequestHandler } from "express";
import type { Logger } from "pino";
import { isRouteErrorResponse, type StaticHandlerContext } from "react-router";

/** What the browser learns of an unexpected server error. */
export const INTERNAL_ERROR_MESSAGE = "Internal error";

/**
 * A loader's unexpected error (anything but an error response a route threw
 * on purpose: 404, 429, …) is logged with its stack and replaced by a bare
 * error before the page or payload is sent, so that neither its message nor
 * its stack reaches the browser. The status stays 500.
 */
export function hideUnexpectedRouteErrors(context: StaticHandlerContext, logger: Logger, url: string): void {
  if (!context.errors) return;
  for (const [routeId, error] of Object.entries(context.errors)) {
    if (isRouteErrorResponse(error)) continue;
    logger.error({ err: error, url, routeId }, "page loader failed");
    context.errors[routeId] = new Error(INTERNAL_ERROR_MESSAGE);
  }
}

/** Unknown API paths answer JSON, never the HTML error screen. */
export const apiNotFound: RequestHandler = (req, res) => {
  res.status(404).json({ error: { statusCode: 404, message: `No API endpoint at ${req.method} ${req.path}` } });
};

/**
 * The last resort: logs the error with its stack and answers without one.
 * Body-parser style errors keep their 4xx status.
 */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (error, req, res, next) => {
    const status = typeof error?.status === "number" && error.status >= 400 && error.status < 500 ? error.status : 500;
    if (status === 500) logger.error({ err: error, url: req.originalUrl }, "request failed");
    if (res.headersSent) return next(error);
    const message = status === 500 ? "Internal error" : String(error.message ?? "Bad request");
    if (req.path.startsWith("/api/") || req.path.endsWith(".json")) {
      res.status(status).json({ error: { statusCode: status, message } });
    } else {
      res.status(status).type("text/plain").send(message);
    }
  };
}
