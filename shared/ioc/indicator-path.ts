import { normalizeIndicator } from "./detect";

/** Canonical page path for any spelling of an indicator, or null when it is not one. */
export function canonicalIndicatorPath(raw: string): string | null {
  const indicator = normalizeIndicator(raw);
  return indicator === null ? null : `/ioc-radar/${encodeURIComponent(indicator.value)}`;
}
