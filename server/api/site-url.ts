import type { Request } from "express";

/**
 * The site's absolute origin for links in feeds: the configured one, else
 * what the request was addressed to (behind a proxy, set TRUST_PROXY).
 */
export function siteOrigin(req: Request, configured: string | undefined): string {
  if (configured) return configured.replace(/\/$/, "");
  return `${req.protocol}://${req.get("host") ?? "localhost"}`;
}
