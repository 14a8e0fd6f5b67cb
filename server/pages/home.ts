import type { HomeData } from "../../shared/types/pages";
import type { RequestContext } from "../http/request-context";

export async function loadHome({ db }: RequestContext): Promise<HomeData> {
  const rows = await db
    .selectFrom("sources")
    .select(["name", "status", "last_success_at", "last_error", "newest_record_at"])
    .orderBy("name")
    .execute();
  return {
    sources: rows.map((row) => ({
      name: row.name,
      status: row.status,
      lastSuccessAt: row.last_success_at,
      lastError: row.last_error,
      newestRecordAt: row.newest_record_at,
    })),
  };
}
