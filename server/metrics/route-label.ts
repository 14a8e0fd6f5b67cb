import type { Request } from "express";
import { match } from "path-to-regexp";
import { PAYLOAD_FILE } from "../../shared/constants";

/**
 * The route a request matched, as a pattern ("/api/v1/cves/:id",
 * "/cve-radar/:cve"), never the raw URL: a label per URL would grow the
 * metrics without bound. Pages are matched by React Router rather than
 * Express, so their pattern comes from the page route table.
 */
export function routeLabeller(pagePatterns: readonly string[]): (req: Request) => string {
  // Static patterns before ones with parameters, as React Router ranks them.
  // Compiled once: matching a pattern given as a string compiles it again on every call, per request.
  const patterns = [...pagePatterns]
    .sort((a, b) => (a.match(/:/g)?.length ?? 0) - (b.match(/:/g)?.length ?? 0))
    .map((pattern) => ({ pattern, matches: match(pattern, { decode: false, sensitive: false }) }));
  const payloadSuffix = `/${PAYLOAD_FILE}`;
  return (req) => {
    if (req.route && typeof req.route.path === "string") return `${req.baseUrl}${req.route.path}`;
    // The raw path, not parsed as a URL: "//" and other odd paths must label, never throw.
    const path = req.originalUrl.split("?", 1)[0] || "/";
    const payload = path.endsWith(payloadSuffix);
    const pagePath = payload ? path.slice(0, -payloadSuffix.length) || "/" : path;
    const page = patterns.find(({ matches }) => matches(pagePath) !== false)?.pattern;
    if (page) return payload ? `${page === "/" ? "" : page}${payloadSuffix}` : page;
    if (path.startsWith("/assets/")) return "/assets/*";
    if (path.startsWith("/api/")) return "/api/*";
    return "other";
  };
}
