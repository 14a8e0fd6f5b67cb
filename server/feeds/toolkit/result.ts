/**
 * What every feed parser yields: a record, or the location and reason of a
 * record it had to skip. A parser throws only when the feed as a whole is
 * unreadable (truncated gzip, wrong header, not JSON), which aborts the import.
 */
export type ParseResult<T> = { ok: true; record: T } | { ok: false; location: string; reason: string };

export function rejected(location: string, reason: string): { ok: false; location: string; reason: string } {
  return { ok: false, location, reason };
}

export function accepted<T>(record: T): { ok: true; record: T } {
  return { ok: true, record };
}

/**
 * A rejection's reason without the value it quotes ('not a valid indicator:
 * "x"' → "not a valid indicator"), so rejections can be counted per reason.
 */
export function reasonKind(reason: string): string {
  const quote = reason.indexOf('"');
  return (quote < 0 ? reason : reason.slice(0, quote)).trim().replace(/[:,]$/, "").trim();
}
