/**
 * Undo the common ways analysts "defang" indicators so they cannot be clicked
 * (docs: ../shared/spec/feed-formats.md, "Refang conventions"). Only
 * bracketed markers and scheme spellings that never occur in a real
 * indicator are rewritten, so refanging plain text or an already clean value
 * is a no-op.
 *
 * Every pattern here runs on untrusted text, so none has a quantifier next to
 * another that could match the same characters: each is a set of fixed
 * strings or a bounded run, and the spaces around a marker are skipped by
 * hand (`\s*marker\s*` backtracks quadratically over a run of spaces).
 */

const SCHEME_WORD = /^(?:hxxp|hxtp|htxp|h\*\*p|meow)(s?)$|^fxp(s?)$/i;

/**
 * Every marker, as one set of alternatives tried at each position (a pass
 * per kind of marker cost ten times as much on the many tokens of a paste):
 *   1 `[hxxp://]`: a bracketed scheme (MISP);
 *   2 `[://]`, `[:]`, `[/]`;
 *   3 a full dot or at marker, brackets on both sides in any mix ("[.]",
 *     "(dot)", "[.)", "{at}");
 *   4 " . " between two letters or digits;
 *   5 a scheme word (hxxp, hXXps, h**p, hxtp, htxp, meow, fxp) before "://"
 *     or a bracketed separator, so words like "meow" in prose stay;
 *   and bare `\.` and the half-bracketed dots ioc-extractor lists ("[.", ".)").
 */
const MARKER =
  /[[({](?:([a-z][a-z0-9+.-]{0,15}:\/\/)|(:\/\/|:|\/)|(\.|dot|@|at))[\])}]|(?<=[a-z0-9])( \. )(?=[a-z0-9])|\b(hxxps?|hxtps?|htxps?|h\*\*ps?|meows?|fxps?)(?=:\/\/|[[({]:)|\\\.|[[({]\.|\.[\])}]/gi;

function schemeWord(word: string): string {
  const match = SCHEME_WORD.exec(word);
  if (match === null) return word;
  return match[2] !== undefined ? `ftp${match[2].toLowerCase()}` : `http${(match[1] ?? "").toLowerCase()}`;
}

/** What a marker stands for. */
function markerValue(match: RegExpExecArray): string {
  const [text, scheme, separator, dotOrAt] = match;
  if (scheme !== undefined) return `${schemeWord(scheme.slice(0, -3))}://`;
  if (separator !== undefined) return separator;
  if (match[5] !== undefined) return schemeWord(match[5]);
  const inner = (dotOrAt ?? text).toLowerCase();
  return inner === "at" || inner === "@" ? "@" : ".";
}

// Every marker above contains one of these; most input contains none, and
// this one test is much cheaper than running the replacements.
const ANY_MARKER = /[[\](){}\\]|h(?:xx|xt|tx|\*\*)p|meow|fxp| \. /i;

const HORIZONTAL_SPACE = /[ \t\u00a0\u2000-\u200a\u3000]/;

/** Spaces and tabs, never a line break: a marker at the end of a line is not joined to the next. */
function isHorizontalSpace(char: string | undefined): boolean {
  return char === " " || char === "\t" || char === "\u00a0" || char === "\u3000" || (char !== undefined && char >= "\u2000" && char <= "\u200a");
}

/**
 * Replaces every marker, or with `keepMarkers` only closes up the
 * spaces around full markers ("evil [.] com" -> "evil[.]com"), so text can be
 * split into tokens while keeping each as written. One pass, linear.
 */
function rewriteMarkers(text: string, keepMarkers: boolean): string {
  // Pieces joined once at the end: a string grown by += over a long line of
  // markers leaves the garbage collector a deep chain of partial strings.
  const out: string[] = [];
  let last = 0;
  MARKER.lastIndex = 0;
  for (let match = MARKER.exec(text); match !== null; match = MARKER.exec(text)) {
    // Spaces around a full dot or at marker belong to the defanging.
    const full = match[3] ?? match[4];
    let end = match.index;
    const start = last;
    last = match.index + match[0].length;
    if (full !== undefined) {
      while (end > start && isHorizontalSpace(text[end - 1])) end -= 1;
      while (isHorizontalSpace(text[last])) last += 1;
    }
    const spaced = match[4] !== undefined;
    out.push(text.slice(start, end), keepMarkers ? (spaced ? "[.]" : match[0]) : markerValue(match));
  }
  out.push(text.slice(last));
  return out.join("");
}

/** Closes up the spaces analysts put around bracketed markers, on one line; the markers stay. */
export function closeSpacedMarkers(line: string): string {
  return HORIZONTAL_SPACE.test(line) && ANY_MARKER.test(line) ? rewriteMarkers(line, true) : line;
}

export function refang(text: string): string {
  return ANY_MARKER.test(text) ? rewriteMarkers(text, false) : text;
}
