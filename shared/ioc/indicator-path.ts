import { parseIndicator } from "./detect";

/**
 * Canonical page path for any spelling of an indicator, or null when it is
 * not one. Values as the feeds write them lead to what is stored: a
 * scheme-less "host/path" to its http:// URL; a port beside a domain stays in
 * the path, so the page can show that port's sightings first.
 */
export function canonicalIndicatorPath(raw: string): string | null {
  const read = parseIndicator(raw);
  if (read === null) return null;
  const { indicator, port } = read;
  const key = indicator.type === "domain" && port !== null ? `${indicator.value}:${port}` : indicator.value;
  return `/ioc-radar/${encodeURIComponent(key)}`;
}
