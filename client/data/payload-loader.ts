import { FetchError, type $Fetch } from "ofetch";
import { redirect } from "react-router";
import { PAYLOAD_FILE } from "../../shared/constants";
import { throwStatus } from "../../shared/routes/route-errors";
import type { PagePayload } from "../../shared/routes/page-payload";
import type { PageLoader } from "../../shared/routes/types";

/** `/<page path>/_payload.json?<buildId>&<page query>`: the build id comes first, as the shell spec has it. */
export function payloadUrl(url: URL, buildId: string): string {
  const base = url.pathname.replace(/\/$/, "");
  const query = url.searchParams.toString();
  return `${base}/${PAYLOAD_FILE}?${encodeURIComponent(buildId)}${query ? `&${query}` : ""}`;
}

function isPagePayload(value: unknown): value is PagePayload {
  return typeof value === "object" && value !== null && "kind" in value;
}

/** Turns one of the payload's three outcomes into what a React Router loader returns or throws. */
function settle(payload: PagePayload): unknown {
  switch (payload.kind) {
    case "data":
      return payload.data;
    case "redirect":
      throw redirect(payload.location, payload.status);
    case "error":
      return throwStatus(payload.error.statusCode, payload.error.message);
  }
}

/**
 * The browser's page loader: every client-side navigation reads the page's
 * data from the server's `_payload.json`, which runs the same loaders as the
 * server render, so there is one data path. An error payload (404, 429 …)
 * arrives with that status and becomes the error screen; a failure with no
 * payload at all (no response, a proxy's 502) is re-thrown with the HTTP
 * client's message naming the method, URL and status.
 */
export function payloadLoader(http: $Fetch, buildId: string): PageLoader {
  return async ({ request }) => {
    try {
      const payload = await http<unknown>(payloadUrl(new URL(request.url), buildId), { signal: request.signal });
      if (!isPagePayload(payload)) throw new Error(`Unexpected payload for ${request.url}`);
      return settle(payload);
    } catch (error) {
      if (error instanceof FetchError && isPagePayload(error.data)) return settle(error.data);
      if (error instanceof FetchError && error.statusCode) throwStatus(error.statusCode, error.message);
      throw error;
    }
  };
}
