import { LOCALE } from "../constants";

const numberFormat = new Intl.NumberFormat(LOCALE);

export function formatCount(value: number): string {
  return numberFormat.format(value);
}

/** "2024-04-12T08:15:00Z" → "2024-04-12"; dates are shown as ISO days everywhere for unambiguity. */
export function formatDay(value: string | null | undefined): string {
  return value ? value.slice(0, 10) : "—";
}

/**
 * A probability published with five decimals (EPSS scores and percentiles)
 * as a percentage at that precision, so 0.99999 reads "99.999%" and never
 * rounds up to 100%; at least two decimals ("50.00%").
 */
export function formatProbability(probability: number): string {
  const thousandths = Math.round(probability * 100_000);
  const text = (thousandths / 1000).toFixed(3);
  return `${text.endsWith("0") ? text.slice(0, -1) : text}%`;
}

/** Signed change in percentage points, e.g. "+1.25 pp". */
export function formatPointChange(change: number): string {
  const points = change * 100;
  const sign = points > 0 ? "+" : points < 0 ? "−" : "±";
  return `${sign}${Math.abs(points).toFixed(2)} pp`;
}

/** Whole days from `from` to `to` (negative when `to` is earlier). */
export function daysBetween(from: Date, to: string): number {
  return Math.ceil((Date.parse(`${to.slice(0, 10)}T00:00:00Z`) - from.getTime()) / 86_400_000);
}
