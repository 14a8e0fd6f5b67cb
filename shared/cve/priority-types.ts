/** A CVE's radar priority as the detail page shows it; server/cve/priority.ts computes it. */

export type CvePriorityFactorName = "kev" | "ransomware" | "epss" | "exploit" | "cvss" | "recency";

export interface CvePriorityFactor {
  factor: CvePriorityFactorName;
  points: number;
  max: number;
  evidence: string;
}

export interface CvePriority {
  score: number;
  factors: CvePriorityFactor[];
}
