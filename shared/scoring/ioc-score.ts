/**
 * IOC score: a transparent 0–100 estimate of how likely an indicator is still
 * malicious, computed from the feeds' own statements. Every page and export
 * uses this one module.
 *
 *   evidence  = min(100, Σ over sources of weight(source) × confidence)
 *               weight(source): how reliable the feed is (SOURCE_WEIGHTS, in
 *               points; DEFAULT_SOURCE_WEIGHT for feeds not listed);
 *               confidence: the feed's reported confidence / 100, or 0.75
 *               when the feed reports none.
 *   recency   = 0.5 + 0.5 × 2^(−days / 30), days since the newest last seen
 *               (first seen when a feed gives no last seen): fresh evidence
 *               counts fully, evidence a month old 75 %, very old 50 %.
 *   decay     = evidence × (1 − recency)               (points removed)
 *   penalty   = 80 % of what is left when the value is on a known-benign
 *               (MISP warninglist) list               (points removed)
 *   score     = round(evidence − decay − penalty, 1)
 *
 * Verdict: "benign-listed" when any warninglist matches (the page then warns
 * first, whatever the score); otherwise "malicious" from 70, "suspicious"
 * from 40, "low" below, and "unknown" when no feed has seen the value.
 */

import type { Sighting } from "../ioc/sighting";

export const SOURCE_WEIGHTS: Readonly<Record<string, number>> = {
  feodotracker: 60,
  malwarebazaar: 55,
  urlhaus: 55,
  threatfox: 50,
  "signature-base": 45,
  maltrail: 40,
  tweetfeed: 35,
};
export const DEFAULT_SOURCE_WEIGHT = 35;
export const DEFAULT_CONFIDENCE = 0.75;
export const HALF_LIFE_DAYS = 30;
export const BENIGN_PENALTY = 0.8;
export const VERDICT_THRESHOLDS = { malicious: 70, suspicious: 40 } as const;

export type IocVerdict = "malicious" | "suspicious" | "low" | "benign-listed" | "unknown";

/** What the score needs of a sighting. */
export type ScoreSighting = Pick<Sighting, "source" | "confidence" | "firstSeen" | "lastSeen">;

export interface SourceContribution {
  source: string;
  weight: number;
  /** The feed's confidence (0–100), null when it gave none. */
  reportedConfidence: number | null;
  points: number;
}

export interface IocScore {
  score: number;
  verdict: IocVerdict;
  /** Σ of the source contributions, capped at 100. */
  evidence: number;
  contributions: SourceContribution[];
  /** Days from the newest sighting to now; null when no sighting has a date. */
  daysSinceLastSeen: number | null;
  recencyFactor: number;
  decayPoints: number;
  benignListed: boolean;
  benignPenaltyPoints: number;
}

const DAY_MS = 86_400_000;
const round1 = (value: number) => Math.round(value * 10) / 10;

function newestSeen(sightings: readonly ScoreSighting[]): number | null {
  let newest: number | null = null;
  for (const sighting of sightings) {
    const time = Date.parse(sighting.lastSeen ?? sighting.firstSeen ?? "");
    if (!Number.isNaN(time) && (newest === null || time > newest)) newest = time;
  }
  return newest;
}

export function sourceWeight(source: string): number {
  return SOURCE_WEIGHTS[source] ?? DEFAULT_SOURCE_WEIGHT;
}

/** The score of an indicator from its sightings, the clock and whether a warninglist matches it. */
export function scoreIndicator(sightings: readonly ScoreSighting[], now: Date, benignListed: boolean): IocScore {
  const bySource = new Map<string, SourceContribution>();
  for (const sighting of sightings) {
    const weight = sourceWeight(sighting.source);
    const confidence = sighting.confidence === null ? DEFAULT_CONFIDENCE : Math.min(100, Math.max(0, sighting.confidence)) / 100;
    const points = round1(weight * confidence);
    const previous = bySource.get(sighting.source);
    // One feed counts once: its strongest statement.
    if (!previous || points > previous.points) {
      bySource.set(sighting.source, { source: sighting.source, weight, reportedConfidence: sighting.confidence, points });
    }
  }
  const contributions = [...bySource.values()].sort((a, b) => b.points - a.points || a.source.localeCompare(b.source));
  const evidence = Math.min(100, round1(contributions.reduce((sum, c) => sum + c.points, 0)));
  const newest = newestSeen(sightings);
  const daysSinceLastSeen = newest === null ? null : Math.max(0, Math.floor((now.getTime() - newest) / DAY_MS));
  const recencyFactor = daysSinceLastSeen === null ? 0.5 : 0.5 + 0.5 * 2 ** (-daysSinceLastSeen / HALF_LIFE_DAYS);
  const decayPoints = round1(evidence * (1 - recencyFactor));
  const afterDecay = evidence - decayPoints;
  const benignPenaltyPoints = benignListed ? round1(afterDecay * BENIGN_PENALTY) : 0;
  const score = Math.max(0, round1(afterDecay - benignPenaltyPoints));
  let verdict: IocVerdict;
  if (benignListed) verdict = "benign-listed";
  else if (contributions.length === 0) verdict = "unknown";
  else if (score >= VERDICT_THRESHOLDS.malicious) verdict = "malicious";
  else if (score >= VERDICT_THRESHOLDS.suspicious) verdict = "suspicious";
  else verdict = "low";
  return {
    score,
    verdict,
    evidence,
    contributions,
    daysSinceLastSeen,
    recencyFactor: Math.round(recencyFactor * 1000) / 1000,
    decayPoints,
    benignListed,
    benignPenaltyPoints,
  };
}
