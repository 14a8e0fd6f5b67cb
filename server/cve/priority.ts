/**
 * Radar priority of a CVE: a transparent 0–100 score that answers "what do we
 * patch first?". Every factor is reported with its points, its maximum and the
 * evidence behind it, so the page can show why a CVE ranks where it does.
 *
 * | factor     | points                                              | max |
 * |------------|-----------------------------------------------------|-----|
 * | kev        | 40 when the CVE is in CISA's KEV catalogue          | 40  |
 * | ransomware | 5 when KEV says "Known" ransomware campaign use     | 5   |
 * | epss       | 25 × EPSS probability (0–1)                         | 25  |
 * | exploit    | 10 when at least one public exploit / PoC reference | 10  |
 * | cvss       | 15 × highest CVSS base score / 10                   | 15  |
 * | recency    | 5 × max(0, 1 − days since publication / 365)        | 5   |
 *
 * The score is the sum, rounded to one decimal. A REJECTED record scores 0 on
 * every factor: its id must not be used, so it never belongs on a patch list.
 * `now` is a parameter so that the product passes the real clock and tests pin it;
 * the recency factor is the only one that depends on it.
 */

import type { CvePriority, CvePriorityFactor, CvePriorityFactorName } from "../../shared/cve/priority-types";

export interface CvePriorityEvidence {
  /** Defaults to "PUBLISHED". */
  state?: string;
  kev: { dateAdded: string | null; knownRansomwareUse: boolean } | null;
  epss: { score: number; percentile: number | null; date: string | null } | null;
  exploitCount: number;
  cvss: { score: number; version: string | null; source: string | null } | null;
  /** ISO date or date-time of publication. */
  published: string | null;
}

export const CVE_PRIORITY_WEIGHTS = {
  kev: 40,
  ransomware: 5,
  epss: 25,
  exploit: 10,
  cvss: 15,
  recency: 5,
} as const satisfies Record<CvePriorityFactorName, number>;

const DAY_MS = 86_400_000;
const RECENCY_WINDOW_DAYS = 365;

function clamp(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, value));
}

function round(value: number, decimals: number): number {
  const factor = 10 ** decimals;
  return Math.round(value * factor) / factor;
}

function formatPercentile(percentile: number): string {
  return `${round(percentile * 100, 1)}th percentile`;
}

export function computeCvePriority(evidence: CvePriorityEvidence, now: Date): CvePriority {
  const w = CVE_PRIORITY_WEIGHTS;
  if (evidence.state === "REJECTED") {
    const factors = (Object.keys(w) as CvePriorityFactorName[]).map((factor) => ({
      factor,
      points: 0,
      max: w[factor],
      evidence: "Rejected CVE id: not scored",
    }));
    return { score: 0, factors };
  }

  const { kev, epss, cvss } = evidence;
  const factors: CvePriorityFactor[] = [];

  factors.push({
    factor: "kev",
    points: kev ? w.kev : 0,
    max: w.kev,
    evidence: kev ? `Listed in CISA KEV${kev.dateAdded ? ` since ${kev.dateAdded}` : ""}` : "Not in CISA KEV",
  });

  factors.push({
    factor: "ransomware",
    points: kev?.knownRansomwareUse ? w.ransomware : 0,
    max: w.ransomware,
    evidence: !kev ? "Not in CISA KEV" : kev.knownRansomwareUse ? "CISA KEV: known use in ransomware campaigns" : "CISA KEV: no known ransomware campaign use",
  });

  const probability = epss ? clamp(epss.score, 0, 1) : 0;
  factors.push({
    factor: "epss",
    points: round(w.epss * probability, 2),
    max: w.epss,
    evidence: epss
      ? `EPSS ${epss.score}` + (epss.percentile === null ? "" : ` (${formatPercentile(epss.percentile)})`) + (epss.date ? ` on ${epss.date}` : "")
      : "No EPSS score",
  });

  const exploits = Math.max(0, evidence.exploitCount);
  factors.push({
    factor: "exploit",
    points: exploits > 0 ? w.exploit : 0,
    max: w.exploit,
    evidence: exploits === 0 ? "No public exploit or PoC reference" : `${exploits} public exploit / PoC reference${exploits === 1 ? "" : "s"}`,
  });

  const base = cvss ? clamp(cvss.score, 0, 10) : 0;
  factors.push({
    factor: "cvss",
    points: round((w.cvss * base) / 10, 2),
    max: w.cvss,
    evidence: cvss ? `CVSS${cvss.version ? ` ${cvss.version}` : ""} base score ${base.toFixed(1)}${cvss.source ? ` (${cvss.source})` : ""}` : "No CVSS score",
  });

  const publishedMs = evidence.published ? Date.parse(evidence.published) : Number.NaN;
  if (Number.isNaN(publishedMs)) {
    factors.push({ factor: "recency", points: 0, max: w.recency, evidence: "Publication date unknown" });
  } else {
    const days = (now.getTime() - publishedMs) / DAY_MS;
    const freshness = clamp(1 - days / RECENCY_WINDOW_DAYS, 0, 1);
    const wholeDays = Math.max(0, Math.floor(days));
    factors.push({
      factor: "recency",
      points: round(w.recency * freshness, 2),
      max: w.recency,
      evidence: `Published ${new Date(publishedMs).toISOString().slice(0, 10)}, ${wholeDays} day${wholeDays === 1 ? "" : "s"} ago`,
    });
  }

  const total = factors.reduce((sum, f) => sum + f.points, 0);
  return { score: round(clamp(total, 0, 100), 1), factors };
}
