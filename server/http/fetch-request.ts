import type { Request as ExpressRequest, Response as ExpressResponse } from "express";

/**
 * Loaders only read the path and query, so requests are given a fixed
 * internal origin: a forged Host header can never leak into a redirect.
 */
export const INTERNAL_ORIGIN = "http://threat-radar.internal";

/**
 * The path with every segment that does not decode (a stray "%", a broken
 * UTF-8 sequence) escaped as it stands, so the router matches it as the
 * literal text it is and answers it like any unknown page.
 */
function decodablePath(url: string): string {
  const query = url.indexOf("?");
  const path = query < 0 ? url : url.slice(0, query);
  const rest = query < 0 ? "" : url.slice(query);
  const segments = path.split("/").map((segment) => {
    try {
      decodeURIComponent(segment);
      return segment;
    } catch {
      return segment.replaceAll("%", "%25");
    }
  });
  return `${segments.join("/")}${rest}`;
}

/**
 * A Fetch API request for the static handler, aborted if the client goes
 * away; `res` is null for a render in the background, after the client's
 * answer was sent (page-documents.ts), which nobody can abort.
 */
export function toFetchRequest(req: ExpressRequest, res: ExpressResponse | null, url: string = req.originalUrl): Request {
  const controller = new AbortController();
  res?.on("close", () => controller.abort());
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (typeof value === "string") headers.set(name, value);
  }
  // Joined as text: `new URL("//x", origin)` would read "//x" as a host name, not a path.
  const target = new URL(`${INTERNAL_ORIGIN}${decodablePath(url.startsWith("/") ? url : `/${url}`)}`);
  return new Request(target, { method: "GET", headers, signal: controller.signal });
}

/** The path and query of a redirect a loader threw, relative to the site. */
export function redirectTarget(response: Response): string {
  const location = response.headers.get("Location") ?? "/";
  const url = new URL(location, INTERNAL_ORIGIN);
  return url.origin === INTERNAL_ORIGIN ? `${url.pathname}${url.search}${url.hash}` : location;
}
