import calculator from "ae-cvss-calculator";
import { cvssSeverity } from "../../../shared/cve/cvss-vector";
import type { CvssVersion } from "./records";

/** The calculator's classes, one per CVSS version (the package is a bundle without named ES exports). */
const { Cvss2, Cvss3P0, Cvss3P1, Cvss4P0 } = calculator as unknown as Record<
  "Cvss2" | "Cvss3P0" | "Cvss3P1" | "Cvss4P0",
  new (vector: string) => { isBaseFullyDefined(): boolean; calculateScores(): { base?: number } }
>;

const CALCULATORS = { "2.0": Cvss2, "3.0": Cvss3P0, "3.1": Cvss3P1, "4.0": Cvss4P0 } as const;

export function isValidBaseScore(score: number | null): score is number {
  return score !== null && score >= 0 && score <= 10;
}

type BaseScore = Readonly<{ score: number; severity: string }>;

/**
 * Vectors already scored. Records repeat a few thousand vectors (the CVE JSON 5 snapshot: 60,426
 * metrics, 3,581 distinct), and the calculator parsed each anew: about 1.5 of that import's 20 CPU
 * seconds. Bounded, so a feed of unique vectors cannot grow it without end.
 */
const scored = new Map<string, BaseScore | null>();
const SCORED_MAX = 20_000;

/**
 * The base score a vector gives, by {metæffekt}'s calculator (all four
 * versions, including CVSS 4.0's lookup tables), with its rating. Null when
 * the vector does not define every base metric or cannot be read: a
 * published score is then all there is.
 */
export function baseScoreOf(version: CvssVersion, vector: string | null): BaseScore | null {
  if (vector === null) return null;
  const key = `${version} ${vector}`;
  const known = scored.get(key);
  if (known !== undefined) return known;
  if (scored.size >= SCORED_MAX) scored.clear();
  const score = computeBaseScore(version, vector);
  scored.set(key, score);
  return score;
}

function computeBaseScore(version: CvssVersion, vector: string): BaseScore | null {
  try {
    const cvss = new CALCULATORS[version](vector);
    if (!cvss.isBaseFullyDefined()) return null;
    const score = cvss.calculateScores().base;
    if (score === undefined || !isValidBaseScore(score)) return null;
    return { score, severity: cvssSeverity(score, version) };
  } catch {
    return null;
  }
}
