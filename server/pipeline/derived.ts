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

/** The CVEs whose evidence and priority a refresh recomputes. */
const rescore = sql.table("staging.rescore");

/** The columns of `cves` each kind of evidence sets, as its own tables say. */
const EVIDENCE_COLUMNS = {
  kev: ["kev", "kev_date_added", "kev_due_date", "kev_ransomware"],
  epss: ["epss", "epss_percentile", "epss_date", "epss_7d_ago"],
  exploits: ["exploit_count"],
  cvss: ["cvss_score", "cvss_severity", "cvss_version", "cvss_source"],
} as const satisfies Record<EvidenceKind, readonly string[]>;
type EvidenceColumn = (typeof EVIDENCE_COLUMNS)[EvidenceKind][number];

const COLUMN_TYPES: Record<EvidenceColumn, "integer" | "text" | "double precision"> = {
  kev: "integer",
  kev_date_added: "text",
  kev_due_date: "text",
  kev_ransomware: "integer",
  epss: "double precision",
  epss_percentile: "double precision",
  epss_date: "text",
  epss_7d_ago: "double precision",
  exploit_count: "integer",
  cvss_score: "double precision",
  cvss_severity: "text",
  cvss_version: "text",
  cvss_source: "text",
};

/**
 * Evidence columns as they should be, keyed by CVE id, with the columns'
 * names: the priority walk computes each CVE's priority from them, and one
 * update writes them with it.
 */
interface NextEvidence {
  table: RawBuilder<unknown>;
  columns: readonly EvidenceColumn[];
  /** Text columns written only into a CVE's first row: KEV's words, which stand in until its record arrives. */
  firstRowColumns?: readonly KevTextColumn[];
}

/** KEV's name, description, vendor and product, as the `cves` columns a record would set. */
const KEV_TEXT = { title: "vulnerability_name", description: "short_description", vendor: "vendor_project", product: "product" } as const;
type KevTextColumn = keyof typeof KEV_TEXT;

/** The touched CVEs' evidence columns as the evidence tables say (a temporary table: `all` needs no staging area). */
const nextEvidence = sql.table("next_evidence");

/**
 * Fills `next_evidence` with the evidence columns of the refreshed kinds for
 * the CVEs in scope (`staging.rescore`'s, or every CVE): KEV, the current
 * and week-old EPSS, the exploit count and the best CVSS (by the score
 * computed from the vector when there is one). Evidence that went away
 * reads as none (no KEV entry, null EPSS and CVSS, no exploit).
 */
async function fillNextEvidence(trx: Kysely<Database>, scope: "rescore" | "all", kinds: ReadonlySet<EvidenceKind>): Promise<NextEvidence> {
  const columns = EVIDENCE_KINDS.filter((kind) => kinds.has(kind)).flatMap((kind) => EVIDENCE_COLUMNS[kind]);
  const ids = scope === "all" ? sql`select id from cves` : sql`select id from ${rescore}`;
  const values: RawBuilder<unknown>[] = [];
  const joins: RawBuilder<unknown>[] = [];
  if (kinds.has("kev")) {
    values.push(sql`case when k.cve_id is null then 0 else 1 end`, sql`k.date_added`, sql`k.due_date`);
    values.push(sql`case when lower(k.known_ransomware_use) = 'known' then 1 else 0 end`);
    joins.push(sql`left join kev_entries k on k.cve_id = t.id`);
  }
  if (kinds.has("epss")) {
    const latest = await trx
      .selectFrom("epss_scores")
      .select(sql<string | null>`max(score_date)`.as("d"))
      .executeTakeFirst();
    const weekAgo = latest?.d ? daysBefore(latest.d, 7) : "";
    // Seeks on epss_scores' primary key (cve_id, score_date).
    values.push(sql`e.epss`, sql`e.percentile`, sql`e.score_date`);
    values.push(sql`(select w.epss from epss_scores w where w.cve_id = t.id and w.score_date <= ${weekAgo} order by w.score_date desc limit 1)`);
    joins.push(sql`left join epss_scores e on e.cve_id = t.id and e.score_date = (select max(m.score_date) from epss_scores m where m.cve_id = t.id)`);
  }
  if (kinds.has("exploits")) {
    values.push(sql`(select count(distinct x.url) from cve_exploits x where x.cve_id = t.id and x.kind in (${sql.join([...EXPLOIT_KINDS])}))`);
  }
  if (kinds.has("cvss")) {
    values.push(sql`b.score`, sql`b.severity`, sql`b.version`, sql`b.source`);
    joins.push(sql`
      left join (
        select cve_id, coalesce(computed_score, score) as score, coalesce(computed_severity, severity) as severity, version, source,
          row_number() over (partition by cve_id order by coalesce(computed_score, score) desc, version desc, ${SOURCE_RANK}) as rn
        from cve_cvss where ${scope === "all" ? sql`true` : sql`cve_id in (select id from ${rescore})`}
      ) b on b.cve_id = t.id and b.rn = 1`);
  }
  const firstRowColumns = kinds.has("kev") ? (Object.keys(KEV_TEXT) as KevTextColumn[]) : [];
  for (const column of firstRowColumns) values.push(sql`k.${sql.ref(KEV_TEXT[column])}`);
  await sql`drop table if exists ${nextEvidence}`.execute(trx);
  const definitions = [
    ...columns.map((column) => sql`${sql.ref(column)} ${sql.raw(COLUMN_TYPES[column])}`),
    ...firstRowColumns.map((column) => sql`${sql.ref(column)} text`),
  ];
  await sql`create temporary table ${nextEvidence} (id text primary key, ${sql.join(definitions)})`.execute(trx);
  await sql`
    insert into ${nextEvidence} (id, ${sql.join([...columns, ...firstRowColumns].map((column) => sql.ref(column)))})
    select t.id, ${sql.join(values)} from (${ids}) t ${sql.join(joins, sql` `)}
    order by t.id`.execute(trx);
  await dialectOf(trx).analyzeTable(trx, "next_evidence");
  return { table: nextEvidence, columns, firstRowColumns };
}

/**
 * For a stored CVE without a record, KEV's name, description, vendor and product stand in, and the
 * page says whose they are (a CVE KEV is first to name has them from its first row).
 */
async function refreshKevText(trx: Kysely<Database>, cveScope: Expression<SqlBool>): Promise<void> {
  await sql`
    update cves set title = k.vulnerability_name, description = k.short_description, vendor = k.vendor_project, product = k.product
    from kev_entries k
    where k.cve_id = cves.id and cves.has_record = 0 and ${cveScope}
      and (cves.title is distinct from k.vulnerability_name or cves.description is distinct from k.short_description
        or cves.vendor is distinct from k.vendor_project or cves.product is distinct from k.product)`.execute(trx);
}

/**
 * `staging.rescore`, the CVEs whose priority is recomputed: the ids `ids` selects (one column, `id`, no
 * duplicates), keyed, in key order, and analysed (PostgreSQL plans the next evidence's lookups from it).
 */
async function fillRescore(trx: Kysely<Database>, ids: RawBuilder<unknown>): Promise<void> {
  await sql`drop table if exists ${rescore}`.execute(trx);
  await sql`create ${sql.raw(dialectOf(trx).scratchTable)} ${rescore} (id text primary key)`.execute(trx);
  await sql`insert into ${rescore} (id) select s.id from (${ids}) s order by s.id`.execute(trx);
  await dialectOf(trx).analyzeTable(trx, "staging.rescore");
}

/** Rows read per query: an EPSS import rescores every CVE, which need not all be in memory at once. */
const PRIORITY_READ_BATCH = 5_000;

/**
 * The rows to write, collected before one set update writes them: a
 * temporary table, so that it needs no staging area (bench/generate.ts
 * refreshes every CVE of a plain database).
 */
const movedPriorities = sql.table("moved_priorities");

async function createMovedPriorities(trx: Kysely<Database>): Promise<void> {
  await sql`drop table if exists ${movedPriorities}`.execute(trx);
  await sql`create temporary table ${movedPriorities} (id text primary key, score double precision not null, is_new integer not null)`.execute(trx);
}

/**
 * One batch of (id, score, 1 when the CVE is not stored yet) into moved_priorities: one statement with
 * one JSON parameter, whatever the batch's size.
 */
async function collectPriorities(trx: Kysely<Database>, rows: ReadonlyArray<readonly [string, number, 0 | 1]>): Promise<void> {
  if (rows.length === 0) return;
  const p = dialectOf(trx).jsonArrayRows(JSON.stringify(rows), "p");
  await sql`
    insert into ${movedPriorities} (id, score, is_new)
    select p.value ->> 0, cast(p.value ->> 1 as double precision), cast(p.value ->> 2 as integer) from ${p} where true
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

const PRIORITY_COLUMNS = [
  "state",
  "kev",
  "kev_date_added",
  "kev_ransomware",
  "epss",
  "epss_percentile",
  "epss_date",
  "exploit_count",
  "cvss_score",
  "cvss_version",
  "cvss_source",
  "date_published",
] as const satisfies ReadonlyArray<keyof PriorityColumns>;

/** A row of the priority walk: the stored columns (null for a CVE not stored yet), and the next evidence as `next_<column>`. */
type WalkRow = { id: string; stored: string | null; priority_score: number | null; evidence_moved: number | boolean } & {
  [column in (typeof PRIORITY_COLUMNS)[number]]: PriorityColumns[column] | null;
} & Record<string, unknown>;

/**
 * Recomputes `priority_score` with the one definition the CVE page uses
 * (shared/scoring/cve-priority.ts) for the CVEs of `next`, each from its
 * next evidence, and writes the evidence and the priority of the rows where
 * either moved. Rows are read in id order, a bounded batch at a time; what
 * moved is collected in a temporary table (one statement per batch) and
 * written by one set update at the end.
 *
 * A CVE not stored yet (its feed is the first to name it) is inserted with
 * its evidence and priority, not inserted and then updated. PostgreSQL
 * writes a new version of each row it updates, with an entry in each of
 * the indexes of `cves`: an update per kind of evidence and another for the
 * priority rewrote the same CVEs several times (a CVE record's import: three
 * times after its upsert; Trickest's first: a new CVE's insert, its exploit
 * count, its priority). Returns how many CVEs it inserted.
 */
async function refreshPriorities(trx: Kysely<Database>, now: Date, next: NextEvidence): Promise<number> {
  await createMovedPriorities(trx);
  const { columns } = next;
  const nextValues = columns.map((column) => sql`n.${sql.ref(column)} as ${sql.ref(`next_${column}`)}`);
  const evidenceMoved = columns.map((column) => sql`c.${sql.ref(column)} is distinct from n.${sql.ref(column)}`);
  let added = 0;
  let after = "";
  for (;;) {
    // Walked by the keyed set, each CVE looked up by its id.
    const { rows } = await sql<WalkRow>`
      select n.id, c.id as stored, ${sql.join(PRIORITY_COLUMNS.map((column) => sql`c.${sql.ref(column)}`))}, c.priority_score,
        ${sql.join(nextValues)}, (${sql.join(evidenceMoved, sql` or `)}) as evidence_moved
      from ${next.table} n left join cves c on c.id = n.id
      where n.id > ${after}
      order by n.id limit ${PRIORITY_READ_BATCH}`.execute(trx);
    const last = rows.at(-1);
    if (!last) break;
    after = last.id;
    const changed: Array<[string, number, 0 | 1]> = [];
    for (const row of rows) {
      const evidence: PriorityColumns = row.stored === null ? { ...NO_EVIDENCE } : { ...(row as PriorityColumns) };
      for (const column of columns) Object.assign(evidence, { [column]: row[`next_${column}`] ?? null });
      const score = priorityOf(evidence, now);
      const isNew = row.stored === null;
      // A new row's priority column would start at its default, 0.
      const storedScore = isNew ? 0 : row.priority_score;
      if (isNew) added += 1;
      if (isNew || score !== storedScore || Boolean(row.evidence_moved)) changed.push([row.id, score, isNew ? 1 : 0]);
    }
    await collectPriorities(trx, changed);
  }
  const assignments = columns.map((column) => sql`${sql.ref(column)} = n.${sql.ref(column)}`);
  await sql`
    update cves set ${sql.join(assignments)}, priority_score = m.score
    from ${next.table} n join ${movedPriorities} m on m.id = n.id
    where n.id = cves.id and m.is_new = 0`.execute(trx);
  if (added > 0) {
    const inserted = [...columns, ...(next.firstRowColumns ?? [])];
    // `on conflict`, not `where not exists (… cves …)`: an anti-join on the very table a statement fills is planned
    // before the rows arrive, and on PostgreSQL a first import (cves empty, no statistics) got a nested loop that
    // scanned every row inserted so far for each new one (EPSS alone ran over 10 minutes on an empty database).
    await sql`
      insert into cves (id, state, ${sql.join(inserted.map((column) => sql.ref(column)))}, priority_score)
      select n.id, 'PUBLISHED', ${sql.join(inserted.map((column) => sql`n.${sql.ref(column)}`))}, m.score
      from ${next.table} n join ${movedPriorities} m on m.id = n.id
      where m.is_new = 1 order by n.id
      on conflict (id) do nothing`.execute(trx);
  }
  await sql`drop table ${movedPriorities}`.execute(trx);
  return added;
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
export async function refreshCveDerived(trx: Kysely<Database>, scope: Scope, now: Date, kinds: readonly EvidenceKind[] = EVIDENCE_KINDS): Promise<void> {
  await refreshDerivedColumns(trx, scope, now, kinds);
  await refreshCveStats(trx);
}

/**
 * The evidence columns, the priorities and their `cve_cwes` copies of the CVEs in scope; not the
 * statistics table. A CVE exists as soon as any source knows it (KEV, EPSS and exploit lists name
 * CVEs whose record may not be imported yet): a touched id not stored yet gets its row here, which
 * says so (`has_record` 0). Every id KEV, EPSS or an exploit list names is a published CVE.
 * Returns how many CVEs it inserted.
 */
async function refreshDerivedColumns(trx: Kysely<Database>, scope: Scope, now: Date, kinds: readonly EvidenceKind[]): Promise<number> {
  // Keyed: tested with `in (select … touched)`, each query built the touched ids' lookup index anew.
  if (scope === "touched") await fillRescore(trx, sql`select distinct id from ${touched}`);
  const walked = scope === "touched" ? "rescore" : "all";
  const kindSet = new Set(kinds);
  if (kindSet.has("kev")) await refreshKevText(trx, walked === "all" ? sql<SqlBool>`true` : sql<SqlBool>`cves.id in (select id from ${rescore})`);
  const next = await fillNextEvidence(trx, walked, kindSet);
  // The next evidence holds exactly the CVEs in scope: walking it is walking them.
  const added = await refreshPriorities(trx, now, next);
  await sql`drop table ${nextEvidence}`.execute(trx);
  await refreshCwePriorities(trx, inScope(scope, sql.ref("cve_cwes.cve_id")));
  return added;
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
export async function refreshEvidenceDerived(trx: Kysely<Database>, now: Date, kinds: readonly EvidenceKind[]): Promise<void> {
  const ids = sql`select id from ${touched}`;
  const count = async (table: RawBuilder<unknown>) =>
    Number((await sql<{ n: number | string }>`select count(*) as n from ${table}`.execute(trx)).rows[0]?.n ?? 0);
  const fewTouched = (await count(touched)) <= STATS_CHANGE_MAX_SHARE * (await count(sql.table("cves")));
  if (fewTouched) await beginStatsChange(trx, ids);
  await refreshDerivedColumns(trx, "touched", now, kinds);
  await (fewTouched ? endStatsChange(trx, ids) : refreshCveStats(trx));
}

/**
 * After an EPSS import: the current and week-old EPSS of the CVEs whose
 * scores the import added or changed (`staging.touched_cves`), and their
 * priorities, written only where they moved. A daily file restates every
 * score, but most CVEs' priorities (rounded to a tenth) stay as they were.
 * EPSS is none of the statistics table's columns: only the CVEs it is first
 * to name change it, all in one row, so it is not counted again.
 */
export async function refreshEpssDerived(trx: Kysely<Database>, now: Date): Promise<void> {
  const added = await refreshDerivedColumns(trx, "touched", now, ["epss"]);
  if (added > 0) {
    // A first import has just filled cves: what follows is planned on fresh statistics.
    await dialectOf(trx).analyzeTable(trx, "cves");
    await countBareCves(trx, added);
  }
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
