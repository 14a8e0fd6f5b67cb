/**
 * The normalised shape of a CVE record as the parsers produce it, whatever the
 * publisher's format (CVE JSON 5.x or NVD API 2.0). The importer stores it in
 * the tables of server/db/schema.ts; the pages read the same vocabulary.
 */

import type { AffectedVersion, CveDescription } from "../../../shared/cve/detail-types";

// Re-exported so that a parser finds its whole record vocabulary here.
export type { AffectedVersion, CveDescription };

export type CveState = "PUBLISHED" | "REJECTED" | "RESERVED";

/** Who asserted a piece of data: the CNA, an ADP container (e.g. "cisa-adp") or NVD. */
export type DataProvider = "cna" | "cisa-adp" | "nvd" | (string & {});

export type CvssVersion = "2.0" | "3.0" | "3.1" | "4.0";

export interface CvssMetric {
  source: DataProvider;
  version: CvssVersion;
  score: number;
  /** As published. Upper-case qualitative rating; derived from the score when the record omits it. */
  severity: string;
  /** What the vector gives (server/feeds/cve/cvss.ts); null when the vector is missing or incomplete. */
  computedScore: number | null;
  computedSeverity: string | null;
  vector: string | null;
  /** NVD only: "Primary" (NVD's own analysis) or "Secondary" (copied from the CNA). */
  nvdType: string | null;
}

export interface AffectedProduct {
  source: DataProvider;
  vendor: string | null;
  product: string | null;
  defaultStatus: string | null;
  versions: AffectedVersion[];
  cpes: string[];
}

export interface CveReference {
  url: string;
  name: string | null;
  /** Publisher tags without CVE's bookkeeping tag "x_transferred". */
  tags: string[];
  source: DataProvider;
}

export interface CveWeakness {
  source: DataProvider;
  /** "CWE-79"; NVD's placeholders ("NVD-CWE-Other", "NVD-CWE-noinfo") are kept as given. */
  cweId: string;
  description: string | null;
}

/** CISA's Stakeholder-Specific Vulnerability Categorization decision points, values as published. */
export interface SsvcDecision {
  source: DataProvider;
  exploitation: string | null;
  automatable: string | null;
  technicalImpact: string | null;
  version: string | null;
  role: string | null;
  timestamp: string | null;
}

export interface CveRecord {
  id: string;
  state: CveState;
  title: string | null;
  /** For REJECTED records these are the rejection reasons. */
  descriptions: CveDescription[];
  assignerOrgId: string | null;
  assignerShortName: string | null;
  dateReserved: string | null;
  datePublished: string | null;
  dateUpdated: string | null;
  dataVersion: string | null;
  metrics: CvssMetric[];
  affected: AffectedProduct[];
  references: CveReference[];
  weaknesses: CveWeakness[];
  ssvc: SsvcDecision[];
}

/** One CISA KEV catalogue entry; optional fields are null when the catalogue omits them. */
export interface KevEntry {
  cveId: string;
  vendorProject: string;
  product: string;
  vulnerabilityName: string;
  dateAdded: string;
  shortDescription: string;
  requiredAction: string;
  dueDate: string;
  knownRansomwareCampaignUse: string | null;
  notes: string | null;
  cwes: string[];
}

export interface EpssScore {
  cveId: string;
  /** YYYY-MM-DD */
  scoreDate: string;
  epss: number;
  percentile: number | null;
  modelVersion: string | null;
}

export type ExploitKind = "poc-repository" | "exploit-reference" | "reference";

export interface ExploitReference {
  url: string;
  kind: ExploitKind;
}

/** What one Trickest markdown file says about a CVE. */
export interface TrickestRecord {
  cveId: string;
  products: string[];
  versions: string[];
  weaknesses: CveWeakness[];
  exploits: ExploitReference[];
}

export interface CweEntry {
  /** "CWE-79" */
  id: string;
  name: string;
  kind: "weakness" | "category" | "view";
  abstraction: string | null;
  status: string | null;
}
