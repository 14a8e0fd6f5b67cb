import type { Kysely } from "kysely";
import { createCveService } from "../server/cve/service";
import type { Database } from "../server/db/schema";
import { createVersionedCache } from "../server/db/versioned-cache";
import { queryHomeOverview } from "../server/home/overview";
import { latencyRow, printTable, timeOnce } from "./http-bench";
import { percentile } from "./load/report";

/**
 * The home overview as the first view after an import (or the hour's first)
 * computes it: every call gets caches of a data version of its own, so each
 * runs every query the page needs. The server renders the page around it;
 * `npm run bench`'s home row is the same page with these figures cached.
 */
export async function homeOverviewCold(db: Kysely<Database>, now: Date, runs: number): Promise<void> {
  const times: number[] = [];
  for (let run = 0; run < runs; run++) {
    const version = () => `home-${run}`;
    times.push(await timeOnce(() => queryHomeOverview({ db, cves: createCveService(db, version), cached: createVersionedCache(version) }, now)));
  }
  const summary = { name: "overview, every cache empty", runs, p50: percentile(times, 50), p95: percentile(times, 95), max: Math.max(...times), bytes: 0 };
  printTable(`Home: the overview's queries, first after a data change (${runs} calls, ms)`, [latencyRow("home")(summary)]);
}
