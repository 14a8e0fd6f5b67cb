import { mkdirSync, rmSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { parseArgs } from "node:util";
import { sql, type Kysely } from "kysely";
import pino from "pino";
import { openSqliteDatabase } from "../server/db/connection";
import { migrateToLatest } from "../server/db/migrate";
import type { Database } from "../server/db/schema";
import { analyzeAll } from "../server/db/sqlite-specific";
import { loadPipelineConfig } from "../server/pipeline/config";
import { refreshCveDerived } from "../server/pipeline/derived";
import { syncSource } from "../server/pipeline/sync";

/**
 * Builds a large SQLite database for performance work (never the product's):
 *
 *   npx tsx bench/generate.ts [--out .bench/scaled.sqlite] [--cves 300000] [--indicators 1000000]
 *                             [--mirror DIR] [--from SNAPSHOT.sqlite]
 *
 * `.bench/` is git-ignored; the output is overwritten.
 *
 * 1. Imports the real snapshots (--mirror, else THREAT_RADAR_DATA_DIR, else
 *    ../shared/data) through the pipeline: CVE JSON 5, KEV, EPSS, Trickest,
 *    CWE, the small IOC feeds (Feodo Tracker, MalwareBazaar, signature-base),
 *    TweetFeed's 2026 daily file and STIX bundle, and the MISP warninglists.
 *    With --from, it starts from a copy of a database the pipeline already
 *    built (e.g. the integration tests' snapshot database in
 *    node_modules/.cache/threat-radar/) and imports only the sources that
 *    database has not imported successfully; this skips the CVE imports,
 *    which take most of the time.
 * 2. Adds CVE rows up to --cves. Their ids are real CVE ids the EPSS file
 *    scores but the CVE JSON 5 snapshot lacks, so each new row gets that id's
 *    real EPSS score, KEV entry and Trickest exploits: the spread of KEV,
 *    EPSS and exploits over years is the real one. The content (description,
 *    CVSS, affected products, CWEs, SSVC) is copied from a real record, with
 *    its dates moved to the id's year. Ids beyond what EPSS knows get
 *    8-digit sequence numbers no real CVE uses.
 * 3. Adds indicators up to --indicators: variants of the real ones (same
 *    type, new value: a subdomain, a URL on a subdomain, a random hash or
 *    IPv4 address) that keep their seed's sightings, dates, tags and CVE links.
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
  return Number((await db.selectFrom(table).select((eb) => eb.fn.countAll().as("n")).executeTakeFirstOrThrow()).n);
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
  const missing = targetCves - (await count(db, "cves"));
  if (missing <= 0) return;
  await sql`create temp table gen_originals as
    select id, row_number() over (order by id) - 1 as n,
           cast(substr(coalesce(date_published, date_reserved), 1, 4) as integer) as year
    from cves where record_source = 'cve-json5' and coalesce(date_published, date_reserved) is not null`.execute(db);
  await sql`create temp table gen_targets as
    select cve_id as id, row_number() over (order by cve_id) - 1 as n
    from (select distinct cve_id from epss_scores where cve_id not in (select id from cves))
    limit ${missing}`.execute(db);
  const known = Number((await sql<{ n: number }>`select count(*) as n from gen_targets`.execute(db)).rows[0]?.n ?? 0);
  if (known < missing) {
    await sql`with recursive k(n) as (select ${known} union all select n + 1 from k where n + 1 < ${missing})
      insert into gen_targets (id, n) select 'CVE-' || (1999 + n % 28) || '-' || (10000000 + n), n from k`.execute(db);
  }
  await sql`create temp table gen_clone_map as
    select t.id, o.id as original, cast(substr(t.id, 5, 4) as integer) - o.year as delta
    from gen_targets t join gen_originals o on o.n = t.n % (select count(*) from gen_originals)`.execute(db);

  const nowIso = now.toISOString();
  const columns = (await columnsOf(db, "cves")).filter((column) => column !== "seq");
  const dated = new Set(["date_reserved", "date_published", "date_updated"]);
  const select = columns
    .map((column) => (column === "id" ? "m.id" : dated.has(column) ? shiftedDate(column, nowIso) : `o.${column}`))
    .join(", ");
  await sql
    .raw(`insert into cves (${columns.join(", ")}) select ${select} from gen_clone_map m join cves o on o.id = m.original`)
    .execute(db);
  for (const table of ["cve_cvss", "cve_affected", "cve_references", "cve_cwes", "cve_ssvc"]) await cloneChildren(db, table);
}

/** SQL for a new value of the seed indicator `i` in round `round`; null for types not varied. */
function variant(type: string, round: number): string | null {
  const randomHex = (bytes: number) => `lower(hex(randomblob(${bytes})))`;
  const octet = "(abs(random()) % 256)";
  switch (type) {
    case "domain":
      return `'v${round}.' || i.value`;
    case "url":
      return `replace(i.value, '://', '://v${round}.')`;
    case "md5":
      return randomHex(16);
    case "sha1":
      return randomHex(20);
    case "sha256":
      return randomHex(32);
    case "sha512":
      return randomHex(64);
    case "ipv4":
      return `(1 + abs(random()) % 223) || '.' || ${octet} || '.' || ${octet} || '.' || ${octet}`;
    default:
      return null;
  }
}

async function addIndicators(db: Kysely<Database>): Promise<void> {
  const seedMax = Number(
    (await db.selectFrom("indicators").select((eb) => eb.fn.max("id").as("m")).executeTakeFirstOrThrow()).m ?? 0,
  );
  const types = (await db.selectFrom("indicators").select("type").distinct().execute())
    .map((row) => row.type)
    .filter((type) => variant(type, 0) !== null);
  if (seedMax === 0 || types.length === 0) return;
  const aggregates = "first_seen, last_seen, seen_at, threat_type, malware_family, confidence, tags, sources, source_count";
  await sql`create temp table gen_variants (seed_id integer not null, type text not null, value text not null)`.execute(db);
  for (let round = 1; ; round += 1) {
    const missing = targetIndicators - (await count(db, "indicators"));
    if (missing <= 0) break;
    await sql`delete from gen_variants`.execute(db);
    const valueOf = `case i.type ${types.map((type) => `when '${type}' then ${variant(type, round)}`).join(" ")} end`;
    await sql
      .raw(
        `insert into gen_variants (seed_id, type, value)
         select i.id, i.type, ${valueOf} from indicators i
         where i.id <= ${seedMax} and i.type in (${types.map((type) => `'${type}'`).join(", ")})
         order by (i.id * 2654435761) % 4294967296 limit ${missing}`,
      )
      .execute(db);
    await sql
      .raw(
        `insert or ignore into indicators (type, value, ${aggregates})
         select v.type, v.value, ${aggregates.replace(/(\w+)/g, "i.$1")}
         from gen_variants v join indicators i on i.id = v.seed_id`,
      )
      .execute(db);
    const sightingColumns = (await columnsOf(db, "indicator_sightings")).filter(
      (column) => column !== "indicator_id" && column !== "raw_value",
    );
    const joinNew = "from gen_variants v join indicators n on n.value = v.value and n.type = v.type";
    await sql
      .raw(
        `insert or ignore into indicator_sightings (indicator_id, raw_value, ${sightingColumns.join(", ")})
         select n.id, v.value, ${sightingColumns.map((column) => `s.${column}`).join(", ")}
         ${joinNew} join indicator_sightings s on s.indicator_id = v.seed_id`,
      )
      .execute(db);
    await sql
      .raw(`insert or ignore into indicator_tags (tag, indicator_id) select t.tag, n.id ${joinNew} join indicator_tags t on t.indicator_id = v.seed_id`)
      .execute(db);
    await sql
      .raw(
        `insert or ignore into indicator_cves (cve_id, indicator_id, source)
         select c.cve_id, n.id, c.source ${joinNew} join indicator_cves c on c.indicator_id = v.seed_id`,
      )
      .execute(db);
    step(`indicators: round ${round}, ${await count(db, "indicators")} in all`);
  }
}

for (const suffix of ["", "-wal", "-shm"]) rmSync(`${values.out}${suffix}`, { force: true });
mkdirSync(dirname(values.out), { recursive: true });
if (values.from) {
  const snapshot = openSqliteDatabase(values.from);
  await sql`vacuum into ${values.out}`.execute(snapshot.db);
  await snapshot.close();
  step(`copied ${values.from}`);
}
const { db, close } = openSqliteDatabase(values.out);
await migrateToLatest(db);
const imported = new Set(
  (await db.selectFrom("sources").select("name").where("status", "=", "ok").execute()).map((row) => row.name),
);

const config = loadPipelineConfig({
  SOURCE_TWEETFEED_URL: ["tweetfeed_daily_2026.csv.gz", "tweetfeed_stix21_week.json.gz"]
    .map((name) => resolve(mirrorDir, "tweetfeed", name))
    .join(","),
});
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
for (const name of SOURCES.filter((source) => !imported.has(source))) {
  const outcome = await syncSource(name, { db, config, logger, mirrorDir });
  if (outcome.status !== "ok") throw new Error(`${name}: ${outcome.status} ${outcome.error ?? outcome.detail ?? ""}`);
  step(`${name}: ${outcome.counts.added} added in ${(outcome.durationMs / 1000).toFixed(1)} s`);
}

await db.transaction().execute(async (trx) => {
  await addCves(trx);
  step(`CVEs: ${await count(trx, "cves")}; refreshing evidence and priorities`);
  await refreshCveDerived(trx, "all", now);
});
step("CVE evidence and priorities refreshed");

await db.transaction().execute(async (trx) => addIndicators(trx));
step(`indicators: ${await count(db, "indicators")}, sightings: ${await count(db, "indicator_sightings")}`);

await analyzeAll(db);
step("analyze done");
await close();
console.log(values.out);
