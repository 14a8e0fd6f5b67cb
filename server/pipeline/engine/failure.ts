import { configuredProxies, type ConfiguredProxy } from "../../runtime/egress";

/** Why an import failed, as an operator needs it: every cause, and what usually fixes it. */
export interface FailureDetail {
  /** The error and each of its causes, outermost first. */
  causes: string[];
  hint: string | null;
}

const NETWORK_UNREACHABLE = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "ENETUNREACH", "EHOSTUNREACH", "UND_ERR_CONNECT_TIMEOUT", "UND_ERR_SOCKET"]);
const DNS = new Set(["ENOTFOUND", "EAI_AGAIN", "EAI_FAIL"]);
const MIRROR_HINT = "On an air-gapped site set SYNC_MIRROR_DIR (or SOURCE_<NAME>_URL) to files brought in";
/** undici's error when a proxy answers CONNECT with anything but 200. */
const TUNNEL_REFUSED = /^Proxy response \((\d{3})\) !== 200 when HTTP Tunneling$/;

interface Described {
  message: string;
  code: string | null;
  status: number | null;
  /** Where a connection or a name lookup failed, when the error says. */
  host: string | null;
  port: number | null;
}

function describe(error: unknown): Described {
  if (!(error instanceof Error)) return { message: String(error), code: null, status: null, host: null, port: null };
  const { code, status, statusCode, address, hostname, port } = error as Partial<
    Record<"code" | "status" | "statusCode" | "address" | "hostname" | "port", unknown>
  >;
  const httpStatus = typeof status === "number" ? status : typeof statusCode === "number" ? statusCode : null;
  const attempted = code === "UND_ERR_CONNECT_TIMEOUT" ? attemptedAddress(error.message) : null;
  const host = typeof address === "string" ? address : typeof hostname === "string" ? hostname : (attempted?.host ?? null);
  const portNumber = typeof port === "number" ? port : (attempted?.port ?? null);
  return { message: error.message, code: typeof code === "string" ? code : null, status: httpStatus, host, port: portNumber };
}

/**
 * The address undici's connect timeout names only in its message: "Connect Timeout Error
 * (attempted address: host:port, timeout: 10000ms)". The host may be an IPv6 address, bracketed
 * or not: the port follows its last colon.
 */
function attemptedAddress(message: string): { host: string; port: number } | null {
  const label = "(attempted address: ";
  const start = message.indexOf(label);
  if (start < 0) return null;
  const end = message.indexOf(",", start);
  const address = message.slice(start + label.length, end < 0 ? undefined : end);
  const colon = address.lastIndexOf(":");
  const port = Number(address.slice(colon + 1));
  return colon > 0 && Number.isInteger(port) && port > 0 ? { host: address.slice(0, colon).replace(/^\[(.*)\]$/, "$1"), port } : null;
}

/** A proxy as the hint names it: the variable, then where it points (never its credentials). */
function named(proxy: ConfiguredProxy): string {
  const host = proxy.host.includes(":") ? `[${proxy.host}]` : proxy.host;
  return `${proxy.variable} (${host}:${proxy.port})`;
}

/** The configured proxy a failed connection or lookup was for: the one at its host (and port, when it says). */
function failedProxy(failure: Described, proxies: readonly ConfiguredProxy[]): ConfiguredProxy | null {
  if (failure.host === null) return null;
  const host = failure.host.toLowerCase();
  return proxies.find((proxy) => proxy.host.toLowerCase() === host && (failure.port === null || failure.port === proxy.port)) ?? null;
}

function offlineHint(proxies: readonly ConfiguredProxy[]): string {
  if (proxies.length === 0) return `This machine cannot reach the publisher. ${MIRROR_HINT}; behind a proxy set HTTPS_PROXY.`;
  return `This machine cannot reach the publisher, or the proxy it goes through (${proxies.map(named).join(", ")}; NO_PROXY names the hosts reached without it). ${MIRROR_HINT}.`;
}

/** What usually fixes the failure one error of the chain describes, when it is a common one. */
function hintFor(failure: Described, proxies: readonly ConfiguredProxy[]): string | null {
  const { code, message, status } = failure;
  const proxy = failedProxy(failure, proxies);
  if (code && DNS.has(code)) {
    if (proxy) return `The proxy's host name in ${proxy.variable} (${proxy.host}) does not resolve (DNS): check the variable and this machine's resolver.`;
    return `The publisher's host name does not resolve (DNS). ${offlineHint(proxies)}`;
  }
  if (code && NETWORK_UNREACHABLE.has(code)) {
    if (proxy)
      return `The proxy in ${named(proxy)} cannot be reached (${code}): check that it runs and that this machine may connect to it. ${MIRROR_HINT} instead.`;
    return offlineHint(proxies);
  }
  const tunnel = TUNNEL_REFUSED.exec(message);
  if (tunnel) {
    const refused = Number(tunnel[1]);
    const through = proxies.length > 0 ? ` in ${proxies.map(named).join(", ")}` : "";
    const why =
      refused === 407
        ? ": it asks for credentials (http://user:password@host:port in the variable)."
        : refused === 403
          ? ": its rules do not let this machine reach the publisher's host."
          : ".";
    return `The proxy${through} refused to connect to the publisher (HTTP ${refused})${why}`;
  }
  if (code && (/^CERT_|^ERR_TLS|SELF_SIGNED|UNABLE_TO_VERIFY/.test(code) || /certificate/i.test(message)))
    return "The TLS certificate was refused. A proxy that inspects TLS needs its CA in NODE_EXTRA_CA_CERTS.";
  if (code === "ENOENT") return "A configured file or mirror path does not exist: check SYNC_MIRROR_DIR and SOURCE_<NAME>_URL.";
  if (status !== null)
    return status === 404 || status === 410
      ? "The publisher no longer serves this address: check SOURCE_<NAME>_URL."
      : `The publisher answered HTTP ${status}.`;
  return null;
}

/**
 * The cause chain of an error (fetch's "fetch failed" hides
 * "getaddrinfo ENOTFOUND www.cisa.gov" one level down) and a hint for the
 * causes operators meet most: no network, a proxy that is down or refuses,
 * DNS, TLS, an HTTP status, a missing file. `proxies`: the ones downloads go
 * through (their credentials never reach the hint, which the API serves).
 */
export function failureDetail(error: unknown, proxies: readonly ConfiguredProxy[] = configuredProxies()): FailureDetail {
  const causes: string[] = [];
  let hint: string | null = null;
  const seen = new Set<unknown>();
  for (let current: unknown = error; current !== undefined && current !== null && !seen.has(current); current = (current as { cause?: unknown }).cause) {
    seen.add(current);
    const failure = describe(current);
    const { message, code } = failure;
    const text = code && !message.includes(code) ? `${message} (${code})` : message;
    if (text && causes.at(-1) !== text) causes.push(text);
    hint ??= hintFor(failure, proxies);
  }
  return { causes: causes.length > 0 ? causes : ["unknown error"], hint };
}

/** The whole chain as one line, for logs and the `last_error` column. */
export function failureMessage(detail: FailureDetail): string {
  return detail.causes.join(": ");
}

/** First retry after a failure, doubling with each further one. */
export const RETRY_BASE_MS = 5 * 60_000;
export const RETRY_CAP_MS = 60 * 60_000;

/** When to try again after the n-th failure in a row (1-based): 5 min, 10, 20, 40, then hourly. */
export function retryDelayMs(consecutiveFailures: number): number {
  return Math.min(RETRY_CAP_MS, RETRY_BASE_MS * 2 ** Math.max(0, consecutiveFailures - 1));
}
