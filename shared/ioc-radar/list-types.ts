import type { SourceStatus } from "../types/source-status";
import type { ParamProblem } from "../query/params";
import type { IocScore } from "../scoring/ioc-score";
import type { IocListParams, IocSortKey } from "./list-params";

export interface IocListRow {
  id: number;
  type: string;
  value: string;
  /** The value defanged for display (hxxp, [.]), so it cannot be followed by accident. */
  display: string;
  /** The publishers' times: earliest first seen and latest last seen any feed gave; null when no feed dated it. */
  firstSeen: string | null;
  lastSeen: string | null;
  /** This instance's own times: when it first imported the value, and (for feeds that list everything they know) when a feed last listed it. */
  listedSince: string;
  stillListedAt: string | null;
  threatType: string | null;
  malwareFamily: string | null;
  tags: string[];
  sources: string[];
  confidence: number | null;
  score: number;
  verdict: IocScore["verdict"];
  /** Names of the warninglists (known-benign lists) the value is on. */
  benignLists: string[];
}

export interface IocListPage {
  rows: IocListRow[];
  total: number;
  page: number;
  perPage: number;
  pageCount: number;
  sort: IocSortKey;
  dir: "asc" | "desc";
}

export interface IocChartStats {
  /** Days of the per-day chart (by last seen), oldest first, and the count per type on each day. */
  perDay: { days: string[]; byType: Record<string, number[]> };
  types: Array<{ type: string; count: number }>;
  topMalware: Array<{ malware: string; count: number }>;
}

/** The choices the filter form offers (values present in the data). */
export interface IocFacets {
  threatTypes: string[];
  sources: string[];
}

/** What the IOC list page loads. */
export interface IocListData {
  params: IocListParams;
  problems: ParamProblem[];
  list: IocListPage;
  stats: IocChartStats;
  /** The IOC feeds that have been imported at least once, in the radar's order. */
  freshness: SourceStatus[];
  facets: IocFacets;
  /** Text handed over by the header search for bulk lookup, if any. */
  lookupText: string | null;
  generatedAt: string;
}
