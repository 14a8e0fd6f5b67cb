import { sql, type Expression, type Kysely, type RawBuilder, type SqlBool } from "kysely";
import { computeCvePriority } from "../cve/priority";
import { EXPLOIT_KINDS } from "../cve/evidence";
import { beginStatsChange, countBareCves, endStatsChange, refreshCveStats } from "../cve/stats-table";
import type { Database } from "../db/schema";
import { dialectOf } from "../db/dialect";
import type { StagingTable } from "./engine/staging";

/** The CVE ids whose evidence a run changed: every CVE importer stages them here. */
export const TOUCHED_CVES: StagingTable = { name: "touched_cves", columns: [["id", "text"]] };

const touched = sql.table("staging.touched_cves");

/**
 * The evidence copied into `cves`, by the feed that provides it. An importer
 * refreshes only the kinds its feed changes: a row a feed creates has no
 * other evidence yet (every source that names a CVE creates its row).
 */
export const EVIDENCE_KINDS = ["kev", "epss", "exploits", "cvss"] as const;
export type EvidenceKind = (typeof EVIDENCE_KINDS)[number];

/** Preference among equal best CVSS scores: the CNA's own rating first. */
const SOURCE_RANK = sql`case source when 'cna' then 0 when 'cisa-adp' then 1 when 'nvd' then 2 else 3 end`;

function daysBefore(isoDate: string, days: number): string {
  const date = new Date(`${isoDate}T00:00:00Z`);
  date.setUTCDate(date.getUTCDate() - days);
  return date.toISOString().slice(0, 10);
}

type Scope = "touched" | "all";

function inScope(scope: Scope, id: Expression<unknown>): Expression<SqlBool> {
  return scope === "all" ? sql<SqlBool>`true` : sql<SqlBool>`${id} in (select id from ${touched})`;
}

/** Where the EPSS refresh keeps its work: the touched CVEs' EPSS as it should be, and the ids whose EPSS moved. */
const epssNow = sql.table("staging.epss_now");
const rescore = sql.table("staging.rescore");

/**
 * A row in `cves` for every touched id: a CVE exists as soon as any source
 * knows it (KEV, EPSS and exploit lists name CVEs whose record may not be
 * imported yet). Such a row says so (`has_record` 0). Every id KEV or EPSS
 * names is a published CVE.
 */
async function ensureRows(trx: Kysely<Database>): Promise<void> {
  await sql`insert into cves (id, state) select distinct id, 'PUBLISHED' from ${touched} where true order by id on conflict (id) do nothing`.execute(trx);
}

/**
 * Copies the evidence the list filters and sorts on into `cves`: KEV, the
 * current and week-old EPSS, the exploit count and the best CVSS (by the
 * score computed from the vector when there is one). Each kind is one
 * set statement over the CVEs in scope: computed once with a join or a
 * window, then written with `update … from`, and cleared where the evidence
 * went away. For a CVE without a record, KEV's name, description, vendor and
 * product stand in, and the page says whose they are.
 */
async function refreshEvidenceColumns(trx: Kysely<Database>, scope: Scope, kinds: ReadonlySet<EvidenceKind>): Promise<void> {
  const run = (query: RawBuilder<unknown>) => query.execute(trx);
  const cveScope = inScope(scope, sql.ref("cves.id"));
  const idScope = (column: string) => inScope(scope, sql.ref(column));

  if (kinds.has("kev")) await refreshKev(run, cveScope);
  if (kinds.has("epss")) await refreshEpss(trx, run, cveScope, idScope);
  if (kinds.has("exploits")) await refreshExploits(run, cveScope, idScope);
  if (kinds.has("cvss")) await refreshCvss(run, cveScope, idScope);
}

type Run = (query: RawBuilder<unknown>) => Promise<unknown>;

async function refreshKev(run: Run, cveScope: Expression<SqlBool>): Promise<void> {
  await run(sql`
    update cves set kev = 1, kev_date_added = k.date_added, kev_due_date = k.due_date,
      kev_ransomware = case when lower(k.known_ransomware_use) = 'known' then 1 else 0 end
    from kev_entries k where k.cve_id = cves.id and ${cveScope}`);
  await run(sql`
    update cves set kev = 0, kev_date_added = null, kev_due_date = null, kev_ransomware = 0
    where kev = 1 and ${cveScope} and not exists (select 1 from kev_entries k where k.cve_id = cves.id)`);
  // Without a record, KEV's own words stand in for the record's (kept only until the record arrives).
  await run(sql`
    update cves set title = k.vulnerability_name, description = k.short_description, vendor = k.vendor_project, product = k.product
    from kev_entries k
    where k.cve_id = cves.id and cves.has_record = 0 and ${cveScope}`);
}

async function refreshEpss(trx: Kysely<Database>, run: Run, cveScope: Expression<SqlBool>, idScope: (column: string) => Expression<SqlBool>): Promise<void> {
  const latest = await trx
    .selectFrom("epss_scores")
    .select(sql<string | null>`max(score_date)`.as("d"))
    .executeTakeFirst();
  const weekAgo = latest?.d ? daysBefore(latest.d, 7) : null;
  await run(sql`
    update cves set epss = e.epss, epss_percentile = e.percentile, epss_date = e.score_date
    from (
      select cve_id, epss, percentile, score_date, row_number() over (partition by cve_id order by score_date desc) as rn
      from epss_scores where ${idScope("epss_scores.cve_id")}
    ) e
    where e.rn = 1 and e.cve_id = cves.id`);
  await run(sql`
    update cves set epss_7d_ago = w.epss
    from (
      select cve_id, epss, row_number() over (partition by cve_id order by score_date desc) as rn
      from epss_scores where score_date <= ${weekAgo ?? ""} and ${idScope("epss_scores.cve_id")}
    ) w
    where w.rn = 1 and w.cve_id = cves.id`);
  await run(sql`
    update cves set epss = null, epss_percentile = null, epss_date = null, epss_7d_ago = null
    where epss is not null and ${cveScope} and not exists (select 1 from epss_scores e where e.cve_id = cves.id)`);
  await run(sql`
    update cves set epss_7d_ago = null
    where epss_7d_ago is not null and ${cveScope}
      and not exists (select 1 from epss_scores w where w.cve_id = cves.id and w.score_date <= ${weekAgo ?? ""})`);
}

async function refreshExploits(run: Run, cveScope: Expression<SqlBool>, idScope: (column: string) => Expression<SqlBool>): Promise<void> {
  await run(sql`
    update cves set exploit_count = x.n
    from (
      select cve_id, count(distinct url) as n from cve_exploits
      where kind in (${sql.join([...EXPLOIT_KINDS])}) and ${idScope("cve_exploits.cve_id")} group by cve_id
    ) x
    where x.cve_id = cves.id and cves.exploit_count <> x.n`);
  await run(sql`
    update cves set exploit_count = 0
    where exploit_count <> 0 and ${cveScope}
      and not exists (select 1 from cve_exploits x where x.cve_id = cves.id and x.kind in (${sql.join([...EXPLOIT_KINDS])}))`);
}

async function refreshCvss(run: Run, cveScope: Expression<SqlBool>, idScope: (column: string) => Expression<SqlBool>): Promise<void> {
  await run(sql`
    update cves set cvss_score = b.score, cvss_severity = b.severity, cvss_version = b.version, cvss_source = b.source
    from (
      select cve_id, coalesce(computed_score, score) as score, coalesce(computed_severity, severity) as severity, version, source,
        row_number() over (partition by cve_id order by coalesce(computed_score, score) desc, version desc, ${SOURCE_RANK}) as rn
      from cve_cvss where ${idScope("cve_cvss.cve_id")}
    ) b
    where b.rn = 1 and b.cve_id = cves.id`);
  await run(sql`
    update cves set cvss_score = null, cvss_severity = null, cvss_version = null, cvss_source = null
    where cvss_score is not null and ${cveScope} and not exists (select 1 from cve_cvss m where m.cve_id = cves.id)`);
}

/**
 * `staging.rescore`, the CVEs whose priority is recomputed: the ids `ids` selects (one column, `id`, no
 * duplicates), keyed, in key order, and analysed (PostgreSQL plans the priority walk's join on it).
 */
async function fillRescore(trx: Kysely<Database>, ids: RawBuilder<unknown>): Promise<void> {
  await sql`drop table if exists ${rescore}`.execute(trx);
  await sql`create table ${rescore} (id text primary key)`.execute(trx);
  await sql`insert into ${rescore} (id) select s.id from (${ids}) s order by s.id`.execute(trx);
  await dialectOf(trx).analyzeTable(trx, "staging.rescore");
}

/** Rows read per query: an EPSS import rescores every CVE, which need not all be in memory at once. */
const PRIORITY_READ_BATCH = 5_000;

/**
 * The priorities that moved, collected before one set update writes them:
 * a temporary table, so that it needs no staging area (bench/generate.ts
 * refreshes every CVE of a plain database).
 */
const movedPriorities = sql.table("moved_priorities");

async function createMovedPriorities(trx: Kysely<Database>): Promise<void> {
  await sql`drop table if exists ${movedPriorities}`.execute(trx);
  await sql`create temporary table ${movedPriorities} (id text primary key, score double precision not null)`.execute(trx);
}

/** One batch of (id, score) into moved_priorities: one statement with one JSON parameter, whatever the batch's size. */
async function collectPriorities(trx: Kysely<Database>, rows: ReadonlyArray<readonly [string, number]>): Promise<void> {
  if (rows.length === 0) return;
  const p = dialectOf(trx).jsonArrayRows(JSON.stringify(rows), "p");
  await sql`
    insert into ${movedPriorities} (id, score)
    select p.value ->> 0, cast(p.value ->> 1 as double precision) from ${p} where true
    on conflict (id) do update set score = excluded.score`.execute(trx);
}

/** The priority of a CVE row, by the one definition the CVE page uses (server/cve/priority.ts). */
export function priorityOf(row: PriorityColumns, now: Date): number {
  return computeCvePriority(
    {
      state: row.state,
      kev: row.kev ? { dateAdded: row.kev_date_added, knownRansomwareUse: row.kev_ransomware === 1 } : null,
      epss: row.epss === null ? null : { score: row.epss, percentile: row.epss_percentile, date: row.epss_date },
      exploitCount: row.exploit_count,
      cvss: row.cvss_score === null ? null : { score: row.cvss_score, version: row.cvss_version, source: row.cvss_source },
      published: row.date_published,
    },
    now,
  ).score;
}

/** The columns of `cves` the priority is computed from. */
export interface PriorityColumns {
  state: string;
  kev: number;
  kev_date_added: string | null;
  kev_ransomware: number;
  epss: number | null;
  epss_percentile: number | null;
  epss_date: string | null;
  exploit_count: number;
  cvss_score: number | null;
  cvss_version: string | null;
  cvss_source: string | null;
  date_published: string | null;
}

/**
 * Recomputes `priority_score` with the one definition the CVE page uses
 * (shared/scoring/cve-priority.ts) and writes the scores that moved. Rows
 * are read in id order, a bounded batch at a time; the moved scores are
 * collected in a temporary table (one statement per batch) and written to
 * `cves` by one set update at the end.
 *
 * With `withEpss`, every rescored CVE's EPSS columns come from
 * `staging.epss_now` and are written by that same update, with its
 * priority computed from them: PostgreSQL writes a new version of each row
 * it updates, with an entry in each of the indexes of `cves`, so two
 * updates of the same 170,000 CVEs cost twice.
 */
async function refreshPriorities(trx: Kysely<Database>, scope: Scope | "rescore", now: Date, withEpss = false): Promise<number> {
  if (scope === "touched") {
    // Walked as a keyed set, as the rescore set is: tested with `in (select … touched)`, each batch's query
    // built the touched ids' lookup index anew (Trickest: 34 batches over 167,093 ids, 3.3 of its 14 s).
    await fillRescore(trx, sql`select distinct id from ${touched}`);
    scope = "rescore";
  }
  await createMovedPriorities(trx);
  let moved = 0;
  let after = "";
  for (;;) {
    const query = trx
      .selectFrom("cves")
      // Qualified: the EPSS rescore joins staging.epss_now, which has an `epss` column too.
      .select([
        "cves.id",
        "cves.state",
        "cves.kev",
        "cves.kev_date_added",
        "cves.kev_ransomware",
        "cves.epss",
        "cves.epss_percentile",
        "cves.epss_date",
        "cves.exploit_count",
        "cves.cvss_score",
        "cves.cvss_version",
        "cves.cvss_source",
        "cves.date_published",
        "cves.priority_score",
      ])
      .where("cves.id", ">", after)
      .orderBy("cves.id")
      .limit(PRIORITY_READ_BATCH);
    // The rescore set is keyed by id: walking it and looking each CVE up beats testing every CVE against it.
    const rows = await (
      scope === "rescore"
        ? query
            .innerJoin(sql<{ id: string }>`${rescore}`.as("r"), (join) => join.onRef("r.id", "=", "cves.id"))
            // Said of both sides: PostgreSQL carries equalities across a join, not ranges, and would walk the set from its start each batch.
            .where("r.id", ">", after)
        : query.where((eb) => inScope(scope, eb.ref("cves.id")))
    )
      .$if(withEpss, (qb) =>
        qb
          .innerJoin(sql<{ id: string; epss: number | null; percentile: number | null; score_date: string | null }>`${epssNow}`.as("n"), (join) =>
            join.onRef("n.id", "=", "cves.id"),
          )
          .where("n.id", ">", after)
          .select(["n.epss as next_epss", "n.percentile as next_percentile", "n.score_date as next_epss_date"]),
      )
      .execute();
    const last = rows.at(-1);
    if (!last) break;
    after = last.id;
    const changed: Array<[string, number]> = [];
    for (const row of rows) {
      const evidence = withEpss
        ? { ...row, epss: row.next_epss ?? null, epss_percentile: row.next_percentile ?? null, epss_date: row.next_epss_date ?? null }
        : row;
      const score = priorityOf(evidence, now);
      if (score !== row.priority_score) moved += 1;
      // Each rescored CVE's EPSS moved: its row is written whether or not its priority did.
      if (withEpss || score !== row.priority_score) changed.push([row.id, score]);
    }
    await collectPriorities(trx, changed);
  }
  if (withEpss) {
    await sql`
      update cves set epss = n.epss, epss_percentile = n.percentile, epss_date = n.score_date, epss_7d_ago = n.week_ago, priority_score = m.score
      from ${epssNow} n join ${movedPriorities} m on m.id = n.id
      where n.id = cves.id`.execute(trx);
  } else if (moved > 0) {
    await sql`update cves set priority_score = m.score from ${movedPriorities} m where m.id = cves.id`.execute(trx);
  }
  await sql`drop table ${movedPriorities}`.execute(trx);
  return moved;
}

/**
 * Copies the CVEs' priorities into their `cve_cwes` rows where they differ (migration 0015): after
 * the priorities moved, and for the rows an import has just written (the column's default is 0).
 * One set update over the CVEs in scope.
 */
async function refreshCwePriorities(trx: Kysely<Database>, scope: Expression<SqlBool>): Promise<void> {
  await sql`
    update cve_cwes set priority = c.priority_score
    from cves c
    where c.id = cve_cwes.cve_id and cve_cwes.priority <> c.priority_score and ${scope}`.execute(trx);
}

/**
 * Brings the denormalised evidence and the Radar priority of the touched
 * CVEs (or all) up to date, inside the import's transaction, so the list
 * never shows a half-updated ranking.
 */
export async function refreshCveDerived(trx: Kysely<Database>, scope: Scope, now: Date, kinds: readonly EvidenceKind[] = EVIDENCE_KINDS): Promise<number> {
  const moved = await refreshDerivedColumns(trx, scope, now, kinds);
  await refreshCveStats(trx);
  return moved;
}

/** The evidence columns, the priorities and their `cve_cwes` copies of the CVEs in scope; not the statistics table. */
async function refreshDerivedColumns(trx: Kysely<Database>, scope: Scope, now: Date, kinds: readonly EvidenceKind[]): Promise<number> {
  if (scope === "touched") await ensureRows(trx);
  await refreshEvidenceColumns(trx, scope, new Set(kinds));
  const moved = await refreshPriorities(trx, scope, now);
  await refreshCwePriorities(trx, inScope(scope, sql.ref("cve_cwes.cve_id")));
  return moved;
}

/**
 * Above this share of every CVE touched, the statistics table is refilled:
 * counting the touched CVEs before and after the change costs more than
 * counting every CVE once (Trickest's first import, 167,093 of 361,254: 1–3
 * CPU s more).
 */
const STATS_CHANGE_MAX_SHARE = 0.1;

/**
 * The same for an importer that writes evidence only (KEV, exploit lists),
 * never `cves` itself: the touched CVEs' rows of the statistics table are
 * all that can change, so when they are few only they are counted again
 * (KEV's 1,404 instead of every CVE).
 */
export async function refreshEvidenceDerived(trx: Kysely<Database>, now: Date, kinds: readonly EvidenceKind[]): Promise<number> {
  const ids = sql`select id from ${touched}`;
  const count = async (table: RawBuilder<unknown>) =>
    Number((await sql<{ n: number | string }>`select count(*) as n from ${table}`.execute(trx)).rows[0]?.n ?? 0);
  const fewTouched = (await count(touched)) <= STATS_CHANGE_MAX_SHARE * (await count(sql.table("cves")));
  if (fewTouched) await beginStatsChange(trx, ids);
  const moved = await refreshDerivedColumns(trx, "touched", now, kinds);
  await (fewTouched ? endStatsChange(trx, ids) : refreshCveStats(trx));
  return moved;
}

/**
 * After an EPSS import: the current and week-old EPSS of the CVEs whose
 * scores the import added or changed (`staging.touched_cves`), written only
 * where they moved, and the priority of only those CVEs recomputed. A daily
 * file restates every score, but most CVEs' scores and nearly all their
 * priorities (rounded to a tenth) stay as they were; KEV, exploits and CVSS
 * are not EPSS's to change.
 */
export async function refreshEpssDerived(trx: Kysely<Database>, now: Date): Promise<number> {
  const run = (query: RawBuilder<unknown>) => query.execute(trx);
  const latest = await trx
    .selectFrom("epss_scores")
    .select(sql<string | null>`max(score_date)`.as("d"))
    .executeTakeFirst();
  const weekAgo = latest?.d ? daysBefore(latest.d, 7) : "";
  await run(sql`drop table if exists ${epssNow}`);
  // Each lookup is a seek on epss_scores' primary key (cve_id, score_date). `double precision`, as the
  // served columns: PostgreSQL's `real` is 4 bytes and would round every score (SQLite's is 8 either way).
  await run(sql`create table ${epssNow} (id text primary key, epss double precision, percentile double precision, score_date text, week_ago double precision)`);
  await run(sql`
    insert into ${epssNow} (id, epss, percentile, score_date, week_ago)
    select t.id, e.epss, e.percentile, e.score_date,
      (select w.epss from epss_scores w where w.cve_id = t.id and w.score_date <= ${weekAgo} order by w.score_date desc limit 1) as week_ago
    from (select distinct id from ${touched}) t
    left join epss_scores e on e.cve_id = t.id and e.score_date = (select max(m.score_date) from epss_scores m where m.cve_id = t.id)
    order by t.id`);
  // Filled moments ago inside this transaction: without statistics PostgreSQL plans the joins below for a few rows.
  await dialectOf(trx).analyzeTable(trx, "staging.epss_now");
  await fillRescore(
    trx,
    sql`
      select n.id from ${epssNow} n join cves c on c.id = n.id
      where c.epss is distinct from n.epss or c.epss_percentile is distinct from n.percentile
        or c.epss_date is distinct from n.score_date or c.epss_7d_ago is distinct from n.week_ago`,
  );
  const rescored = await refreshPriorities(trx, "rescore", now, true);
  // EPSS writes no CWE rows, and a CVE it is first to name (below) has none: only the rescored move.
  await refreshCwePriorities(trx, sql<SqlBool>`cve_cwes.cve_id in (select id from ${rescore})`);
  const added = await insertEpssOnlyCves(trx, now);
  if (added > 0) {
    // A first import has just filled cves: what follows is planned on fresh statistics.
    await dialectOf(trx).analyzeTable(trx, "cves");
    // EPSS is none of the statistics' columns: only the CVEs it is first to name change them, all in one row.
    await countBareCves(trx, added);
  }
  return rescored + added;
}

/**
 * A CVE EPSS is first to name (EPSS scores published CVEs only) is written
 * with its scores and its priority, not updated after: a first import
 * creates about 300,000 of them, and each update would rewrite the row and
 * its priority indexes again. Their priority depends on EPSS alone (no
 * record, KEV entry or exploit is stored for them yet).
 */
async function insertEpssOnlyCves(trx: Kysely<Database>, now: Date): Promise<number> {
  await createMovedPriorities(trx);
  let created = 0;
  let after = "";
  for (;;) {
    const { rows } = await sql<{ id: string; epss: number | null; percentile: number | null; score_date: string | null }>`
      select n.id, n.epss, n.percentile, n.score_date from ${epssNow} n
      where n.id > ${after} and not exists (select 1 from cves c where c.id = n.id)
      order by n.id limit ${PRIORITY_READ_BATCH}`.execute(trx);
    const last = rows.at(-1);
    if (!last) break;
    after = last.id;
    const scored: Array<[string, number]> = [];
    for (const row of rows) {
      const score = priorityOf({ ...NO_EVIDENCE, epss: row.epss, epss_percentile: row.percentile, epss_date: row.score_date }, now);
      // The column's default is 0: only other scores need writing.
      if (score !== 0) scored.push([row.id, score]);
    }
    await collectPriorities(trx, scored);
    created += rows.length;
  }
  // `on conflict`, not `where not exists (… cves …)`: an anti-join on the very table a statement fills is planned
  // before the rows arrive, and on PostgreSQL a first import (cves empty, no statistics) got a nested loop that
  // scanned every row inserted so far for each new one (EPSS alone ran over 10 minutes on an empty database).
  await sql`
    insert into cves (id, state, epss, epss_percentile, epss_date, epss_7d_ago, priority_score)
    select n.id, 'PUBLISHED', n.epss, n.percentile, n.score_date, n.week_ago, coalesce(m.score, 0) from ${epssNow} n
    left join ${movedPriorities} m on m.id = n.id
    where true order by n.id
    on conflict (id) do nothing`.execute(trx);
  await sql`drop table ${movedPriorities}`.execute(trx);
  return created;
}

/** A published CVE's row as a feed that names only its id creates it. */
const NO_EVIDENCE: PriorityColumns = {
  state: "PUBLISHED",
  kev: 0,
  kev_date_added: null,
  kev_ransomware: 0,
  epss: null,
  epss_percentile: null,
  epss_date: null,
  exploit_count: 0,
  cvss_score: null,
  cvss_version: null,
  cvss_source: null,
  date_published: null,
};
