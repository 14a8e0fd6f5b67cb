import { toSearch } from "../query/params";
import type { CveListParams } from "./list-params";

/**
 * The CVE list's words and link builder without its validator: the pages run
 * in the browser, which only builds links, while parsing happens on the server
 * (list-params.ts, zod). Keeping zod out of here keeps it out of the browser.
 */

export const CVE_SORT_KEYS = ["priority", "published", "updated", "cvss", "epss", "exploits", "kev_added", "kev_due"] as const;
export type CveSortKey = (typeof CVE_SORT_KEYS)[number];

export const SEVERITIES = ["critical", "high", "medium", "low", "none"] as const;
export type Severity = (typeof SEVERITIES)[number];

export const CVE_STATES = ["published", "rejected", "all"] as const;

export const CVE_PAGE_SIZE_DEFAULT = 25;
/** Hard maximum: a page never holds more rows than this. */
export const CVE_PAGE_SIZE_MAX = 100;
export const CVE_PAGE_MAX = 10_000;

/** The query keys in link order; a unit test holds it equal to the schema's keys. */
export const CVE_LIST_KEYS = [
  "q",
  "severity",
  "cvss_min",
  "cvss_max",
  "epss_min",
  "epss_max",
  "kev",
  "exploit",
  "vendor",
  "product",
  "cwe",
  "published_from",
  "published_to",
  "updated_from",
  "updated_to",
  "state",
  "sort",
  "dir",
  "page",
  "per_page",
] as const;

/** The query string of a CVE list view (stable order, defaults omitted). */
export function cveListSearch(params: CveListParams): string {
  return toSearch(CVE_LIST_KEYS, params);
}
