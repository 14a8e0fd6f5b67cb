import { parseCveId } from "../cve/cve-id";
import { canonicalIndicatorPath } from "../ioc/indicator-path";
import { extractIndicators } from "../ioc/normalize";
import { BULK_LOOKUP_ID, LOOKUP_PARAM } from "../ioc-radar/lookup-types";

/** Where the header search box sends what was typed. */
export function searchDestination(input: string): string | null {
  const text = input.trim();
  if (!text) return null;
  const cve = parseCveId(text);
  if (cve) return `/cve-radar/${cve}`;
  if (!/\s/.test(text)) {
    const single = canonicalIndicatorPath(text);
    if (single) return single;
  }
  const indicators = extractIndicators(text, 2);
  if (indicators.length > 1) return `/ioc-radar?${LOOKUP_PARAM}=${encodeURIComponent(text)}#${BULK_LOOKUP_ID}`;
  if (indicators.length === 1 && indicators[0]!.original.trim() === text) return canonicalIndicatorPath(text);
  return `/cve-radar?q=${encodeURIComponent(text)}`;
}
