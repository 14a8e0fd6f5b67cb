import { ofetch, type $Fetch } from "ofetch";

/**
 * The statuses on which a request without a body is retried once (app-shell
 * spec, section 7). ofetch already retries only methods without a payload by
 * default, so POST, PUT, PATCH and DELETE are never retried.
 */
export const RETRY_STATUS_CODES = [408, 409, 425, 429, 500, 502, 503, 504];

/**
 * JSON over fetch with the shell's rules. A 400-599 answer rejects with an
 * error whose message names the method, the URL and the status, or says that
 * no response came.
 */
export function createHttpClient(baseURL: string, fetchImpl?: typeof fetch): $Fetch {
  return ofetch.create({
    baseURL,
    responseType: "json",
    retryStatusCodes: RETRY_STATUS_CODES,
    retryDelay: 250,
    ...(fetchImpl ? { fetch: fetchImpl } : {}),
  });
}
