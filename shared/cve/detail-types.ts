import type { CvePriority } from "./priority-types";

/** Parts of a CVE record as parsed (server/feeds/cve/records.ts) that the page shows as they are. */
export interface AffectedVersion {
  version: string;
  status: string;
  versionType?: string;
  lessThan?: string;
  lessThanOrEqual?: string;
  changes?: Array<{ at: string; status: string }>;
}

export interface CveDescription {
  lang: string;
  value: string;
}

export interface CveDetailData {
  id: string;
  /** The CVE record (CVE JSON 5 or NVD), null when no feed delivered one. */
  record: {
    state: string;
    title: string | null;
    descriptions: CveDescription[];
    assigner: string | null;
    reserved: string | null;
    published: string | null;
    updated: string | null;
    recordSource: string;
  } | null;
  priority: CvePriority;
  /**
   * Every metric of every source: `score` and `severity` as published,
   * `computedScore` and `computedSeverity` what the vector gives (null when it
   * cannot be computed). Ranking, filters and sorting use the computed score.
   */
  cvss: Array<{
    source: string;
    version: string;
    score: number;
    severity: string;
    computedScore: number | null;
    computedSeverity: string | null;
    vector: string | null;
    nvdType: string | null;
  }>;
  epss: {
    current: { score: number; percentile: number | null; date: string; modelVersion: string | null } | null;
    history: Array<{ date: string; score: number; percentile: number | null }>;
  };
  kev: {
    vendorProject: string;
    product: string;
    name: string;
    dateAdded: string;
    dueDate: string;
    requiredAction: string;
    shortDescription: string;
    ransomware: string | null;
    notes: string | null;
  } | null;
  ssvc: Array<{
    source: string;
    exploitation: string | null;
    automatable: string | null;
    technicalImpact: string | null;
    version: string | null;
    timestamp: string | null;
  }>;
  cwes: Array<{ id: string; name: string | null; source: string }>;
  affected: Array<{ source: string; vendor: string | null; product: string | null; defaultStatus: string | null; versions: AffectedVersion[]; cpes: string[] }>;
  references: Array<{ url: string; name: string | null; tags: string[]; source: string }>;
  /** At most the first 100 references, exploits first; `exploitCount` is the full count of exploit evidence. */
  exploits: Array<{ url: string; kind: string; origin: string }>;
  exploitCount: number;
  timeline: Array<{ event: string; date: string }>;
  /** Events of the record's life that happened but that no feed dates (e.g. the first public exploit: PoC lists carry no dates). */
  undatedEvents: Array<{ event: string; note: string }>;
  indicators: Array<{ type: string; value: string }>;
  /** What no feed told us, said plainly on the page. */
  missing: string[];
}
