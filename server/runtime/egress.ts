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

/** A proxy the environment names for downloads, as it may be shown to anyone: never its credentials. */
export interface ConfiguredProxy {
  /** The variable that set it, as spelled in the environment. */
  variable: string;
  host: string;
  port: number;
}

const DEFAULT_PORTS: Record<string, number> = { "http:": 80, "https:": 443 };

/**
 * The proxies egressDispatcher() sends requests through, read with undici's
 * precedence (the lower-case spelling first). A value that is not a URL is
 * left out: undici refuses it too, and the download's own error says so.
 */
export function configuredProxies(env: NodeJS.ProcessEnv = process.env): ConfiguredProxy[] {
  const proxies: ConfiguredProxy[] = [];
  for (const [lower, upper] of [
    ["https_proxy", "HTTPS_PROXY"],
    ["http_proxy", "HTTP_PROXY"],
  ] as const) {
    const variable = env[lower] ? lower : env[upper] ? upper : null;
    if (variable === null) continue;
    const url = URL.parse(env[variable]!);
    if (!url) continue;
    const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
    proxies.push({ variable, host, port: Number(url.port) || DEFAULT_PORTS[url.protocol] || 0 });
  }
  return proxies;
}
