import type { CvssVersion } from "../../../shared/types/cve";

/**
 * Qualitative rating for a base score when a record omits it: CVSS v2 has
 * three bands (NVD's convention), v3.x and v4.0 five (FIRST's specifications).
 */
export function severityFromScore(version: CvssVersion, score: number): string {
  if (version === "2.0") return score < 4 ? "LOW" : score < 7 ? "MEDIUM" : "HIGH";
  if (score === 0) return "NONE";
  if (score < 4) return "LOW";
  if (score < 7) return "MEDIUM";
  if (score < 9) return "HIGH";
  return "CRITICAL";
}

export function isValidBaseScore(score: number | null): score is number {
  return score !== null && score >= 0 && score <= 10;
}
