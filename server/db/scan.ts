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
   * narrows by related rows only: a CVE's CWEs or affected products), or
   * reads the filter from the walked index itself (an indicator type, by
   * value), rather than a read of the row.
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
 * How far a walk the counts chose may go before gathering is cheaper, or
 * null when even the whole sort order is: about two index steps per match
 * (gathering the 43,902 high and medium CVEs took as long as walking 90,000
 * rows on the full import), eight times more where a step reads no row.
 * Density assumes the matches are spread evenly along the sort order, and
 * sometimes they sit at its far end: the 4,950 critical CVEs
 * by ascending priority came after 356,000 others (310–340 ms, and a 503
 * when the machine was busy), where gathering them takes a few.
 */
export function walkCheckCap({ matches, universe, probing = false }: ScanInput): number | null {
  const cap = WALK_STEPS_PER_MATCH * (probing ? 8 : 1) * matches;
  return cap < universe ? cap : null;
}

const WALK_STEPS_PER_MATCH = 2;

/**
 * The scan choice, checked by a probe of the sort order's front where it
 * matters: `hitsWithin(cap, enough)` counts the matches among the first
 * `cap` rows a walk steps over, stopping at `enough`. Walk when the page's
 * last row lies within them: a sparse filter whose matches lead the order
 * walks after all, and a dense one whose matches trail it gathers.
 */
export async function chooseScanProbed(input: ScanInput, hitsWithin: (cap: number, enough: number) => Promise<number>): Promise<Scan> {
  const scan = chooseScan(input);
  const cap = scan === "gather" ? walkProbeCap(input) : walkCheckCap(input);
  if (cap === null) return scan;
  return (await hitsWithin(cap, input.pageEnd)) >= input.pageEnd ? "walk" : "gather";
}
