import { toSearch } from "../query/params";
import type { IocListParams } from "./list-params";

/**
 * The IOC list's words and link builder without its validator: the pages run
 * in the browser, which only builds links, while parsing happens on the server
 * (list-params.ts, zod). Keeping zod out of here keeps it out of the browser.
 */

/** last_seen and first_seen are the publishers' times; listed_since is when this instance first imported the value. */
export const IOC_SORT_KEYS = ["last_seen", "first_seen", "listed_since", "confidence", "sources", "value", "type"] as const;
export type IocSortKey = (typeof IOC_SORT_KEYS)[number];

/** "Seen within" windows, relative to the request's clock. */
export const SEEN_WINDOWS = { "24h": 1, "7d": 7, "30d": 30, "90d": 90 } as const;
export type SeenWindow = keyof typeof SEEN_WINDOWS;

export const IOC_PAGE_SIZE_DEFAULT = 25;
/** Hard maximum: a page never holds more rows than this. */
export const IOC_PAGE_SIZE_MAX = 100;
export const IOC_PAGE_MAX = 10_000;

/** The query keys in link order; a unit test holds it equal to the schema's keys. */
export const IOC_LIST_KEYS = ["q", "type", "threat_type", "malware", "tag", "source", "host", "domain", "seen", "sort", "dir", "page", "per_page"] as const;

/** The query string of an IOC list view (stable order, defaults omitted). */
export function iocListSearch(params: IocListParams): string {
  return toSearch(IOC_LIST_KEYS, params);
}
