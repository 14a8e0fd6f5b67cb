import type { ParamProblem } from "../query/params";
import type { CveListParams, CveSortKey } from "./list-params";

export interface CveListRow {
  id: string;
  state: string;
  /** False while only KEV, EPSS or Trickest know the id: no CVE record has been imported yet. */
  hasRecord: boolean;
  title: string;
  vendor: string | null;
  product: string | null;
  cvss: { score: number; severity: string; version: string | null; source: string | null } | null;
  epss: { score: number; percentile: number | null; change7d: number | null } | null;
  kev: { dateAdded: string | null; dueDate: string | null; ransomware: boolean } | null;
  exploitCount: number;
  published: string | null;
  updated: string | null;
  priority: number;
}

export interface CveListPage {
  rows: CveListRow[];
  total: number;
  page: number;
  perPage: number;
  pageCount: number;
  sort: CveSortKey;
  dir: "asc" | "desc";
}

export interface CveChartStats {
  /** Days of the per-day chart, oldest first, and the count per severity on each day. */
  perDay: { days: string[]; bySeverity: Record<string, number[]> };
  severity: Array<{ severity: string; count: number }>;
  topVendors: Array<{ vendor: string; count: number }>;
}

/** What the CVE list page loads: the page of rows, the chart statistics and any rejected parameters. */
export interface CveListData {
  params: CveListParams;
  problems: ParamProblem[];
  list: CveListPage;
  stats: CveChartStats;
}
