/**
 * Defensive readers for publisher JSON. A record with one odd sub-element
 * (a reference without url, a metric without score) keeps everything else;
 * only its identity fields decide whether the record is rejected.
 */
export type JsonObject = Record<string, unknown>;

export function asObject(value: unknown): JsonObject | null {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as JsonObject) : null;
}

export function objects(value: unknown): JsonObject[] {
  return Array.isArray(value) ? value.map(asObject).filter((v): v is JsonObject => v !== null) : [];
}

export function asString(value: unknown): string | null {
  return typeof value === "string" && value.length > 0 ? value : null;
}

/**
 * A publisher's timestamp as ISO 8601 UTC with milliseconds, the one form the
 * database stores, so that timestamps compare and sort as strings. CVE JSON 5
 * and NVD write UTC times without a zone ("2025-01-17T00:00:00"), which
 * JavaScript would read as local time. Null for anything that is not a date.
 */
/** A time zone designator at the end of an ISO 8601 time. */
const ZONE_SUFFIX = /(?:[zZ]|[+-]\d{2}:?\d{2})$/;

export function asUtcTimestamp(value: unknown): string | null {
  const text = asString(value);
  if (!text) return null;
  const timePart = text.indexOf("T");
  const zoned = timePart < 0 || ZONE_SUFFIX.test(text.slice(timePart)) ? text : `${text}Z`;
  const time = Date.parse(zoned);
  return Number.isNaN(time) ? null : new Date(time).toISOString();
}

export function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string" && v.length > 0) : [];
}

export function asNumber(value: unknown): number | null {
  return typeof value === "number" && Number.isFinite(value) ? value : null;
}

/** First description in English ("en", "en-US"…), else the first one. */
export function englishText(descriptions: Array<{ lang: string; value: string }>): string | null {
  const english = descriptions.find((d) => d.lang.toLowerCase().startsWith("en"));
  return (english ?? descriptions[0])?.value ?? null;
}
