import type { ErrorRequestHandler, RequestHandler } from "express";
import { QUERY_CANCELED } from "../db/postgres/error-codes";
import { QueryTimeoutError } from "../db/sqlite/read-pool";
import { clientLeft, isClientGone } from "../runtime/request-scope";
import { BUSY_MESSAGE, RETRY_AFTER_SECONDS } from "./shed";
import type { Logger } from "pino";
import { isRouteErrorResponse, UNSAFE_ErrorResponseImpl as ErrorResponseImpl, type StaticHandlerContext } from "react-router";

/** What the browser learns of an unexpected server error. */
export const INTERNAL_ERROR_MESSAGE = "Internal error";

/**
 * What a request's loader errors mean for its response. A read whose client
 * went away means there is nobody to answer ("client-gone"). A read that ran
 * out of time becomes a 503 error screen. Any other unexpected error (not an
 * error response a route threw on purpose: 404, 429, …) is logged with its
 * stack and replaced by a bare error, so that neither its message nor its
 * stack reaches the browser; the status stays 500.
 */
export function settleRouteErrors(context: StaticHandlerContext, logger: Logger, url: string): "client-gone" | "answer" {
  if (!context.errors) return "answer";
  const errors = Object.entries(context.errors);
  if (errors.some(([, error]) => isClientGone(error))) return "client-gone";
  for (const [routeId, error] of errors) {
    if (isRouteErrorResponse(error)) continue;
    if (isQueryTimeout(error)) {
      logger.warn({ url, routeId }, "a database read took too long; answered 503");
      context.errors[routeId] = new ErrorResponseImpl(503, "Service Unavailable", { message: BUSY_MESSAGE });
      context.statusCode = 503;
      continue;
    }
    logger.error({ err: error, url, routeId }, "page loader failed");
    context.errors[routeId] = new Error(INTERNAL_ERROR_MESSAGE);
  }
  return "answer";
}

function isQueryTimeout(error: unknown): boolean {
  if (error instanceof QueryTimeoutError || (error instanceof Error && error.name === "QueryTimeoutError")) return true;
  // PostgreSQL cancels a read that outlives statement_timeout itself.
  return error instanceof Error && (error as { code?: unknown }).code === QUERY_CANCELED;
}

/** Unknown API paths answer JSON, never the HTML error screen. */
export const apiNotFound: RequestHandler = (req, res) => {
  res.status(404).json({ error: { statusCode: 404, message: `No API endpoint at ${req.method} ${req.path}` } });
};

export interface ErrorHandlerOptions {
  logger: Logger;
  /** Page and payload handlers, to answer people with the error screen rather than plain text. */
  pages: RequestHandler;
  payloads: RequestHandler;
}

/**
 * The last resort. A client that went away gets nothing (and one debug line);
 * a read that ran out of time is a 503 with Retry-After; a 4xx keeps its
 * status (body-parser errors); anything else is a logged 500 without details.
 * People get the error screen, API clients JSON.
 */
export function errorHandler({ logger, pages, payloads }: ErrorHandlerOptions): ErrorRequestHandler {
  return (error, req, res, next) => {
    if (isClientGone(error) || clientLeft(res)) {
      logger.debug({ url: req.originalUrl }, "client went away");
      return;
    }
    const timedOut = isQueryTimeout(error);
    const status = timedOut ? 503 : typeof error?.status === "number" && error.status >= 400 && error.status < 500 ? error.status : 500;
    if (status === 500) logger.error({ err: error, url: req.originalUrl }, "request failed");
    if (timedOut) logger.warn({ url: req.originalUrl }, "a database read took too long; answered 503");
    if (res.headersSent) return next(error);
    const message = timedOut ? BUSY_MESSAGE : status === 500 ? INTERNAL_ERROR_MESSAGE : String(error.message ?? "Bad request");
    if (timedOut) res.set("Retry-After", String(RETRY_AFTER_SECONDS));
    if (req.originalUrl.startsWith("/api/") || (req.method !== "GET" && req.method !== "HEAD")) {
      res.status(status).json({ error: { statusCode: status, message } });
      return;
    }
    res.locals.forcedError = { status, message };
    const plain = () => {
      if (!res.headersSent) res.status(status).type("text/plain").send(message);
    };
    payloads(req, res, () => pages(req, res, plain));
  };
}
