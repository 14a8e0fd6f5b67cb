/** Why an import failed, as an operator needs it: every cause, and what usually fixes it. */
export interface FailureDetail {
  /** The error and each of its causes, outermost first. */
  causes: string[];
  hint: string | null;
}

const NETWORK_UNREACHABLE = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "ENETUNREACH", "EHOSTUNREACH", "UND_ERR_CONNECT_TIMEOUT", "UND_ERR_SOCKET"]);
const DNS = new Set(["ENOTFOUND", "EAI_AGAIN", "EAI_FAIL"]);
const NO_NETWORK_HINT =
  "This machine cannot reach the publisher. On an air-gapped site set SYNC_MIRROR_DIR (or SOURCE_<NAME>_URL) to files brought in; behind a proxy set HTTPS_PROXY.";

function describe(error: unknown): { message: string; code: string | null; status: number | null } {
  if (!(error instanceof Error)) return { message: String(error), code: null, status: null };
  const { code, status, statusCode } = error as { code?: unknown; status?: unknown; statusCode?: unknown };
  const httpStatus = typeof status === "number" ? status : typeof statusCode === "number" ? statusCode : null;
  return { message: error.message, code: typeof code === "string" ? code : null, status: httpStatus };
}

/**
 * The cause chain of an error (fetch's "fetch failed" hides
 * "getaddrinfo ENOTFOUND www.cisa.gov" one level down) and a hint for the
 * causes operators meet most: no network, DNS, TLS, an HTTP status, a
 * missing file.
 */
export function failureDetail(error: unknown): FailureDetail {
  const causes: string[] = [];
  let hint: string | null = null;
  const seen = new Set<unknown>();
  for (let current: unknown = error; current !== undefined && current !== null && !seen.has(current); current = (current as { cause?: unknown }).cause) {
    seen.add(current);
    const { message, code, status } = describe(current);
    const text = code && !message.includes(code) ? `${message} (${code})` : message;
    if (text && causes.at(-1) !== text) causes.push(text);
    if (hint !== null) continue;
    if (code && DNS.has(code)) hint = `The publisher's host name does not resolve (DNS). ${NO_NETWORK_HINT}`;
    else if (code && NETWORK_UNREACHABLE.has(code)) hint = NO_NETWORK_HINT;
    else if (code && (/^CERT_|^ERR_TLS|SELF_SIGNED|UNABLE_TO_VERIFY/.test(code) || /certificate/i.test(message)))
      hint = "The TLS certificate was refused. A proxy that inspects TLS needs its CA in NODE_EXTRA_CA_CERTS.";
    else if (code === "ENOENT") hint = "A configured file or mirror path does not exist: check SYNC_MIRROR_DIR and SOURCE_<NAME>_URL.";
    else if (status !== null)
      hint =
        status === 404 || status === 410 ? "The publisher no longer serves this address: check SOURCE_<NAME>_URL." : `The publisher answered HTTP ${status}.`;
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
