import { AsyncLocalStorage } from "node:async_hooks";
import type { RequestHandler } from "express";

/** What code deep inside a request (a database read) may need to know about it. */
export interface RequestScope {
  /** Aborted when the client went away before the response was complete. */
  signal: AbortSignal;
}

const storage = new AsyncLocalStorage<RequestScope>();

/** Runs `work` as part of a request: everything it calls sees `scope`. */
export function runInScope<T>(scope: RequestScope, work: () => T): T {
  return storage.run(scope, work);
}

/** The request being served, if the caller runs inside one. */
export function currentRequest(): RequestScope | undefined {
  return storage.getStore();
}

/** Raised where work stops because nobody is waiting for its result any more. */
export class ClientGoneError extends Error {
  override name = "ClientGoneError";
  constructor() {
    super("the client closed the connection before the response was complete");
  }
}

export function isClientGone(error: unknown): boolean {
  return error instanceof ClientGoneError || (error instanceof Error && error.name === "ClientGoneError");
}

/** Whether a request's client left before the response was complete (whatever error that caused). */
export function clientLeft(res: { destroyed: boolean; writableFinished: boolean }): boolean {
  return res.destroyed && !res.writableFinished;
}

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
