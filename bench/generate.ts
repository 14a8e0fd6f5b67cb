import { mkdirSync, rmSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { parseArgs } from "node:util";
import { sql, type Kysely } from "kysely";
import pino from "pino";
import { openSqliteDatabase } from "../server/db/connection";
import { migrateToLatest } from "../server/db/migrate";
import type { Database } from "../server/db/schema";
import { loadPipelineConfig } from "../server/pipeline/config";
import { refreshCveDerived } from "../server/pipeline/derived";
import { openSqliteImportStore } from "../server/pipeline/engine/store";
import { syncSources } from "../server/pipeline/sync";
import { refreshIndicatorStats } from "../server/ioc/stats-table";
import { addSyntheticIndicators } from "./synthetic-indicators";

/**
 * Builds a large SQLite database (schema 2) for performance work (never the product's):
 *
 *   npx tsx bench/generate.ts [--out .bench/scaled.sqlite] [--cves 300000] [--indicators 1000000]
 *                             [--mirror DIR] [--from SNAPSHOT.sqlite] [--source NAME]... [--skip-import]
 *
 * `.bench/` is git-ignored; the output is overwritten.
 *
 * 1. Imports the real snapshots (--mirror, else THREAT_RADAR_DATA_DIR, else
 *    ../shared/data) with the import engine `npm run sync` uses: CVE JSON 5,
 *    KEV, EPSS, Trickest, CWE, the small IOC feeds (Feodo Tracker,
 *    MalwareBazaar, signature-base), TweetFeed's 2026 daily file and STIX
 *    bundle, and the MISP warninglists (--source narrows the list;
 *    --skip-import imports nothing). With --from, it starts from a copy of a
 *    database the pipeline already built (e.g. the integration tests'
 *    snapshot database in node_modules/.cache/threat-radar/) and imports only
 *    the sources that database has not imported successfully; this skips the
 *    CVE imports, which take most of the time.
 * 2. Adds CVE records up to --cves. Their ids are those schema 2 already
 *    keeps a row for without a record (ids KEV, EPSS or Trickest know), so
 *    each clone keeps that id's real EPSS score, KEV entry and exploits: the
 *    spread of KEV, EPSS and exploits over years is the real one. The content
 *    (description, CVSS, affected products, CWEs, SSVC) is copied from a real
 *    record, with its dates moved to the id's year. Ids beyond those get
 *    8-digit sequence numbers no real CVE uses.
 * 3. Adds synthetic indicators up to --indicators, shaped like the real
 *    feeds' (bench/synthetic-indicators.ts).
 * 4. Recomputes the derived CVE columns and priorities, and runs ANALYZE so
 *    the planner has statistics for the scaled tables.
 */
const projectRoot = resolve(import.meta.dirname, "..");
const { values } = parseArgs({
  options: {
    out: { type: "string", default: resolve(projectRoot, ".bench/scaled.sqlite") },
    mirror: { type: "string" },
    cves: { type: "string", default: "300000" },
    indicators: { type: "string", default: "1000000" },
    from: { type: "string" },
    source: { type: "string", multiple: true },
    "skip-import": { type: "boolean", default: false },
  },
});
const mirrorDir = values.mirror ?? process.env.THREAT_RADAR_DATA_DIR ?? resolve(projectRoot, "../shared/data");
const targetCves = Number(values.cves);
const targetIndicators = Number(values.indicators);
const logger = pino({ level: "warn" });
const now = new Date();
const started = performance.now();

function step(message: string): void {
  console.error(`[${((performance.now() - started) / 1000).toFixed(0).padStart(4)} s] ${message}`);
}

async function count(db: Kysely<Database>, table: "cves" | "indicators" | "indicator_sightings"): Promise<number> {
  return Number(
    (
      await db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll().as("n"))
        .executeTakeFirstOrThrow()
    ).n,
  );
}

async function countWhere(db: Kysely<Database>, table: string, where: string): Promise<number> {
  return Number((await sql<{ n: number }>`select count(*) as n from ${sql.table(table)} where ${sql.raw(where)}`.execute(db)).rows[0]?.n ?? 0);
}

async function columnsOf(db: Kysely<Database>, table: string): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`select name from pragma_table_info(${table})`.execute(db);
  return rows.map((row) => row.name);
}

/** Copies the cve-json5 rows of a child table from each original to its clones. */
async function cloneChildren(db: Kysely<Database>, table: string): Promise<void> {
  const columns = await columnsOf(db, table);
  const select = columns.map((column) => (column === "cve_id" ? "m.id" : `c.${column}`)).join(", ");
  await sql
    .raw(
      `insert into ${table} (${columns.join(", ")}) select ${select} from gen_clone_map m
       join ${table} c on c.cve_id = m.original where c.origin = 'cve-json5'`,
    )
    .execute(db);
}

/** A date moved by `m.delta` years, clamped to now; 29 February becomes the 28th. */
function shiftedDate(column: string, nowIso: string): string {
  return `case when o.${column} is null then null else min(replace(
    printf('%04d', cast(substr(o.${column}, 1, 4) as integer) + m.delta) || substr(o.${column}, 5),
    '-02-29', '-02-28'), '${nowIso}') end`;
}

async function addCves(db: Kysely<Database>): Promise<void> {
  const missing = targetCves - (await countWhere(db, "cves", "has_record = 1"));
  if (missing <= 0) return;
  const originals = await countWhere(db, "cves", "record_source = 'cve-json5'");
  if (originals === 0) {
    step("CVEs: no CVE JSON 5 record to copy from (import cve-json5 or pass --from); none added");
    return;
  }
  await sql`create temp table gen_originals as
    select id, row_number() over (order by id) - 1 as n,
           cast(substr(coalesce(date_published, date_reserved), 1, 4) as integer) as year
    from cves where record_source = 'cve-json5' and coalesce(date_published, date_reserved) is not null`.execute(db);
  // Schema 2 keeps a row (has_record 0) for every id KEV, EPSS or an exploit list knows: those become the clones.
  await sql`create temp table gen_targets as
    select id, row_number() over (order by id) - 1 as n from cves where has_record = 0 order by id limit ${missing}`.execute(db);
  const known = Number((await sql<{ n: number }>`select count(*) as n from gen_targets`.execute(db)).rows[0]?.n ?? 0);
  if (known < missing) {
    await sql`with recursive k(n) as (select ${known} union all select n + 1 from k where n + 1 < ${missing})
      insert into gen_targets (id, n) select 'CVE-' || (1999 + n % 28) || '-' || (10000000 + n), n from k`.execute(db);
  }
  await sql`create temp table gen_clone_map as
    select t.id, o.id as original, cast(substr(t.id, 5, 4) as integer) - o.year as delta
    from gen_targets t join gen_originals o on o.n = t.n % (select count(*) from gen_originals)`.execute(db);

  const nowIso = now.toISOString();
  // The targets that had a row lose it: the clone replaces it, and the derived refresh puts back its EPSS, KEV and exploits.
  await sql`delete from cves where has_record = 0 and id in (select id from gen_clone_map)`.execute(db);
  const columns = (await columnsOf(db, "cves")).filter((column) => column !== "seq");
  const dated = new Set(["date_reserved", "date_published", "date_updated"]);
  const select = columns.map((column) => (column === "id" ? "m.id" : dated.has(column) ? shiftedDate(column, nowIso) : `o.${column}`)).join(", ");
  await sql.raw(`insert into cves (${columns.join(", ")}) select ${select} from gen_clone_map m join cves o on o.id = m.original`).execute(db);
  for (const table of ["cve_cvss", "cve_affected", "cve_references", "cve_cwes", "cve_ssvc"]) await cloneChildren(db, table);
}

for (const suffix of ["", "-wal", "-shm"]) rmSync(`${values.out}${suffix}`, { force: true });
mkdirSync(dirname(values.out), { recursive: true });
if (values.from) {
  const snapshot = openSqliteDatabase(values.from);
  await sql`vacuum into ${values.out}`.execute(snapshot.db);
  await snapshot.close();
  step(`copied ${values.from}`);
}

const SOURCES = [
  "mitre-cwe",
  "cisa-kev",
  "epss",
  "cve-json5",
  "trickest-poc",
  "feodotracker",
  "malwarebazaar",
  "signature-base",
  "tweetfeed",
  "misp-warninglists",
];
const store = openSqliteImportStore(values.out);
await migrateToLatest(store.db);
if (!values["skip-import"]) {
  const imported = new Set((await store.db.selectFrom("sources").select("name").where("status", "=", "ok").execute()).map((row) => row.name));
  const config = loadPipelineConfig({
    SOURCE_TWEETFEED_URL: ["tweetfeed_daily_2026.csv.gz", "tweetfeed_stix21_week.json.gz"].map((name) => resolve(mirrorDir, "tweetfeed", name)).join(","),
  });
  const wanted = SOURCES.filter((source) => (!values.source || values.source.includes(source)) && !imported.has(source));
  await syncSources(wanted, {
    store,
    config,
    logger,
    mirrorDir,
    onOutcome: (outcome) => {
      if (outcome.status !== "ok" && outcome.status !== "skipped")
        throw new Error(`${outcome.source}: ${outcome.status} ${outcome.error ?? outcome.detail ?? ""}`);
      step(`${outcome.source}: ${outcome.status}, ${outcome.counts.added} added in ${(outcome.durationMs / 1000).toFixed(1)} s`);
    },
  });
}
await store.close();

const { db, close } = openSqliteDatabase(values.out);
await db.transaction().execute(async (trx) => {
  await addCves(trx);
  step(`CVEs: ${await countWhere(trx, "cves", "has_record = 1")} with a record; refreshing evidence and priorities`);
  await refreshCveDerived(trx, "all", now);
});
step("CVE evidence and priorities refreshed");

await db.transaction().execute(async (trx) => {
  await addSyntheticIndicators(trx, targetIndicators - (await count(trx, "indicators")), now, step);
  // The synthetic rows bypass the importer, which keeps the statistics table current.
  await refreshIndicatorStats(trx);
});
step(`indicators: ${await count(db, "indicators")}, sightings: ${await count(db, "indicator_sightings")}`);

await sql`analyze`.execute(db);
step("analyze done");
await close();
console.log(values.out);
