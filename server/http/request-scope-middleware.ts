import type { RequestHandler } from "express";
import { ClientGoneError, runInScope } from "../runtime/request-scope";

/**
 * Gives every request a scope whose signal fires when the client disconnects
 * early, so that queued database work for it is dropped instead of done for
 * nobody (a burst of requests whose clients time out would otherwise keep
 * the readers busy long after everyone left).
 */
export const requestScope: RequestHandler = (_req, res, next) => {
  // Logging, admission, rendering and this scope each watch the response end: a dozen listeners is normal.
  res.setMaxListeners(20);
  const controller = new AbortController();
  res.once("close", () => {
    if (!res.writableFinished) controller.abort(new ClientGoneError());
  });
  runInScope({ signal: controller.signal }, next);
};
