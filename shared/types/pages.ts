/** Loader data of each page: what the server embeds and `_payload.json` returns. */

export interface SourceSummary {
  name: string;
  status: string;
  lastSuccessAt: string | null;
  lastError: string | null;
  newestRecordAt: string | null;
}

export interface HomeData {
  sources: SourceSummary[];
}
