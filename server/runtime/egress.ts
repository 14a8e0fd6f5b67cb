import { EnvHttpProxyAgent, fetch as undiciFetch, type Dispatcher } from "undici";

let dispatcher: Dispatcher | null = null;

/**
 * The connection pool for every request this server makes to the outside
 * (feed downloads, the bot check). Node's own fetch ignores HTTPS_PROXY,
 * HTTP_PROXY and NO_PROXY; undici's EnvHttpProxyAgent reads them (upper or
 * lower case) when it is created, once per process, so a machine whose only
 * egress is a proxy can still sync.
 */
export function egressDispatcher(): Dispatcher {
  dispatcher ??= new EnvHttpProxyAgent();
  return dispatcher;
}

/**
 * fetch through egressDispatcher(). It is undici's own fetch rather than
 * Node's: a dispatcher from the undici package is not guaranteed to work
 * with the (older) undici bundled inside Node.
 */
export const egressFetch = ((input: Parameters<typeof fetch>[0], init?: RequestInit) =>
  undiciFetch(input as Parameters<typeof undiciFetch>[0], {
    ...(init as Parameters<typeof undiciFetch>[1]),
    dispatcher: egressDispatcher(),
  })) as unknown as typeof fetch;
