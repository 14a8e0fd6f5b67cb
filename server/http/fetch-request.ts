import type { Request as ExpressRequest, Response as ExpressResponse } from "express";

/**
 * Loaders only read the path and query, so requests are given a fixed
 * internal origin: a forged Host header can never leak into a redirect.
 */
export const INTERNAL_ORIGIN = "http://threat-radar.internal";

/** A Fetch API request for the static handler, aborted if the client goes away. */
export function toFetchRequest(req: ExpressRequest, res: ExpressResponse, url: string = req.originalUrl): Request {
  const controller = new AbortController();
  res.on("close", () => controller.abort());
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (typeof value === "string") headers.set(name, value);
  }
  return new Request(new URL(url, INTERNAL_ORIGIN), { method: "GET", headers, signal: controller.signal });
}

/** The path and query of a redirect a loader threw, relative to the site. */
export function redirectTarget(response: Response): string {
  const location = response.headers.get("Location") ?? "/";
  const url = new URL(location, INTERNAL_ORIGIN);
  return url.origin === INTERNAL_ORIGIN ? `${url.pathname}${url.search}${url.hash}` : location;
}
