/**
 * How a page of a filtered, sorted list is found. "gather": every match is
 * collected through the filters' own indexes, then sorted; best when few
 * rows match, and what counts and statistics need anyway. "walk": the sort
 * column's index is walked in order and each row tested, stopping at the
 * page's last row; best when many rows match. Both select the same rows.
 */
export type Scan = "gather" | "walk";

export interface ScanInput {
  /** Rows matching the filter (a cached count). */
  matches: number;
  /** Rows the list is drawn from with no filter (a cached count). */
  universe: number;
  /** Position of the page's last row: page × rows per page. */
  pageEnd: number;
  /**
   * Whether a walk's step is an index probe into another table (the filter
   * narrows by related rows only: a CVE's CWEs or affected products) rather
   * than a read of the row itself.
   */
  probing?: boolean;
}

/**
 * Walking costs about pageEnd × universe / matches index steps; gathering
 * about one row read per match, each roughly twice as dear (measured with
 * `npm run bench` on 300,000 CVEs and 1,000,000 indicators). Walk when the
 * matches are dense enough for that to win. A probing walk's step is far
 * cheaper than gathering a match through the related table (the match's id
 * looked up, its row read, then sorted): on the full import, CWE-79 (15,371
 * of 361,109 CVEs) and Microsoft (2,342) both walked 2–5× faster than they
 * gathered, so such filters walk at an eighth of the density.
 */
export function chooseScan({ matches, universe, pageEnd, probing = false }: ScanInput): Scan {
  return matches * matches * (probing ? 8 : 1) >= 2 * pageEnd * universe ? "walk" : "gather";
}

/**
 * How many rows of the sort index a probe may walk before gathering, or
 * null when no probe is worth it. The match count cannot tell whether the
 * matches sit at the front of the sort order: on the full import the
 * critical, exploited CVEs are the ones with the highest EPSS, so walking
 * the EPSS index fills their first page within a few dozen rows, while
 * their density (2,581 of 361,109) says gather (4,950 rows read and sorted).
 * The probe walks at most a few pages' worth of the sort order, far less
 * than gathering reads, and the page is walked only if it fills there.
 */
export function walkProbeCap({ matches, pageEnd }: ScanInput): number | null {
  const cap = PROBE_PAGES * pageEnd;
  return cap < matches ? cap : null;
}

/** Pages' worth of rows a probe walks: cheap beside gathering the matches it is tried for. */
const PROBE_PAGES = 16;

/**
 * The scan choice, with a probe where the counts say gather: `hitsWithin(cap)`
 * counts the matches among the first `cap` rows of the unfiltered sort order.
 * Walk when the page's last row lies within them.
 */
export async function chooseScanProbed(input: ScanInput, hitsWithin: (cap: number) => Promise<number>): Promise<Scan> {
  const scan = chooseScan(input);
  if (scan === "walk") return scan;
  const cap = walkProbeCap(input);
  return cap !== null && (await hitsWithin(cap)) >= input.pageEnd ? "walk" : "gather";
}
