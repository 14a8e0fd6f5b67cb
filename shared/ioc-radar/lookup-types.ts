import type { IocVerdict } from "../scoring/ioc-score";

/** Bulk lookup limits (documented in the README and the OpenAPI description). */
export const LOOKUP_MAX_INDICATORS = 10_000;
export const LOOKUP_MAX_BYTES = 1_048_576;

/**
 * Query parameter of the IOC list page that pre-fills bulk lookup (the header
 * search sends several pasted indicators there). It is page state, not a
 * filter, so the list, its exports and the API never see it.
 */
export const LOOKUP_PARAM = "lookup";
/** Element id of the bulk lookup box on the IOC list page (the header search links to it). */
export const BULK_LOOKUP_ID = "bulk-lookup";

export type LookupVerdict = "known" | "unknown" | "benign-listed";

export interface LookupResult {
  /** The text as it was written in the input. */
  input: string;
  type: string;
  value: string;
  /** The canonical value defanged for display. */
  display: string;
  verdict: LookupVerdict;
  known: boolean;
  score: number | null;
  scoreVerdict: IocVerdict;
  malwareFamily: string | null;
  sources: string[];
  benignLists: string[];
  /** The indicator's page. */
  link: string;
}

export interface LookupResponse {
  count: number;
  summary: {
    byVerdict: Record<LookupVerdict, number>;
    byType: Record<string, Record<LookupVerdict, number>>;
  };
  results: LookupResult[];
}
