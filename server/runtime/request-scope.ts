import { AsyncLocalStorage } from "node:async_hooks";

/**
 * What code deep inside a request (a database read) may need to know about it.
 * Kept out of server/http so that the store and services can ask without
 * depending on the HTTP layer; server/http/request-scope-middleware.ts opens the scope.
 */
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
