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
