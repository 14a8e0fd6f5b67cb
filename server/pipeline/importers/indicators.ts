import { sql, type Insertable, type Kysely, type RawBuilder } from "kysely";
import type { IocSighting } from "../../../shared/types/ioc";
import type { Database, IndicatorSightingsTable, IndicatorsTable } from "../../db/schema";
import { chunk, insertRows, type Importer, type WriteContext } from "../importer";

type SightingRow = Omit<IndicatorSightingsTable, "indicator_id" | "source" | "port" | "imported_at">;
type Aggregate = Omit<Insertable<IndicatorsTable>, "id" | "type" | "value">;

interface IndicatorState {
  id: number | null;
  type: string;
  value: string;
  /** The stored aggregate as JSON (null for a new indicator), to tell whether it changed. */
  stored: string | null;
  storedTags: readonly string[];
  aggregate: Aggregate;
}

const AGGREGATE_COLUMNS = [
  "first_seen",
  "last_seen",
  "seen_at",
  "threat_type",
  "malware_family",
  "confidence",
  "tags",
  "sources",
  "source_count",
] as const satisfies ReadonlyArray<keyof Aggregate>;

const SIGHTING_COLUMNS = [
  "raw_value",
  "first_seen",
  "last_seen",
  "threat_type",
  "malware_family",
  "tags",
  "confidence",
  "reporter",
  "reference",
] as const satisfies ReadonlyArray<keyof IndicatorSightingsTable>;

/**
 * `set col = excluded.col` for an upsert: rows that changed are written back
 * with one multi-row statement instead of an UPDATE each.
 */
function excludedColumns(columns: readonly string[]): Record<string, RawBuilder<unknown>> {
  return Object.fromEntries(columns.map((column) => [column, sql.ref(`excluded.${column}`)]));
}

interface SightingState {
  indicator: IndicatorState;
  port: number;
  stored: SightingRow | null;
  row: SightingRow;
}

function earlier(a: string | null, b: string | null): string | null {
  return a === null ? b : b === null ? a : a < b ? a : b;
}

function later(a: string | null, b: string | null): string | null {
  return a === null ? b : b === null ? a : a > b ? a : b;
}

function union(json: string, extra: readonly string[]): string {
  const values: string[] = JSON.parse(json);
  for (const value of extra) if (!values.includes(value)) values.push(value);
  return JSON.stringify(values);
}

/**
 * Folds one record into a source's sighting. Dates widen, tags accumulate;
 * the descriptive fields come from the record only when it is strictly newer,
 * so re-reading the same feed (ties included) changes nothing.
 */
function mergeSighting(previous: SightingRow | null, record: IocSighting): SightingRow {
  const fresh: SightingRow = {
    raw_value: record.rawValue,
    first_seen: record.firstSeen,
    last_seen: record.lastSeen ?? record.firstSeen,
    threat_type: record.threatType,
    malware_family: record.malwareFamily,
    tags: JSON.stringify(record.tags),
    confidence: record.confidence,
    reporter: record.reporter,
    reference: record.reference,
  };
  if (!previous) return fresh;
  const newer = (fresh.last_seen ?? "") > (previous.last_seen ?? "");
  const pick = <T>(mine: T | null, theirs: T | null): T | null => (newer ? (theirs ?? mine) : (mine ?? theirs));
  return {
    raw_value: newer ? fresh.raw_value : previous.raw_value,
    first_seen: earlier(previous.first_seen, fresh.first_seen),
    last_seen: later(previous.last_seen, fresh.last_seen),
    threat_type: pick(previous.threat_type, fresh.threat_type),
    malware_family: pick(previous.malware_family, fresh.malware_family),
    tags: union(previous.tags, record.tags),
    confidence: pick(previous.confidence, fresh.confidence),
    reporter: pick(previous.reporter, fresh.reporter),
    reference: pick(previous.reference, fresh.reference),
  };
}

/** Folds a sighting into the indicator's list-page aggregates, with the same "strictly newer wins" rule. */
function mergeAggregate(aggregate: Aggregate, source: string, sighting: SightingRow): Aggregate {
  const newer = (sighting.last_seen ?? "") > (aggregate.last_seen ?? "");
  const pick = <T>(mine: T | null | undefined, theirs: T | null): T | null =>
    newer ? (theirs ?? mine ?? null) : (mine ?? theirs);
  const firstSeen = earlier(aggregate.first_seen ?? null, sighting.first_seen);
  const lastSeen = later(aggregate.last_seen ?? null, sighting.last_seen);
  const sources: string[] = JSON.parse(union(aggregate.sources ?? "[]", [source]));
  return {
    first_seen: firstSeen,
    last_seen: lastSeen,
    seen_at: lastSeen ?? firstSeen ?? aggregate.seen_at,
    threat_type: pick(aggregate.threat_type, sighting.threat_type),
    malware_family: pick(aggregate.malware_family, sighting.malware_family),
    confidence:
      aggregate.confidence == null || (sighting.confidence !== null && sighting.confidence > aggregate.confidence)
        ? sighting.confidence
        : aggregate.confidence,
    tags: union(aggregate.tags ?? "[]", JSON.parse(sighting.tags)),
    sources: JSON.stringify(sources.sort()),
    source_count: sources.length,
  };
}

const keyOf = (type: string, value: string) => `${type}\u0000${value}`;

async function loadIndicators(trx: Kysely<Database>, records: readonly IocSighting[], now: string) {
  const states = new Map<string, IndicatorState>();
  const values = [...new Set(records.map((r) => r.indicator.value))];
  for (const part of chunk(values, 500)) {
    const rows = await trx.selectFrom("indicators").selectAll().where("value", "in", part).execute();
    for (const { id, type, value, ...aggregate } of rows) {
      states.set(keyOf(type, value), {
        id,
        type,
        value,
        stored: JSON.stringify(aggregate),
        storedTags: JSON.parse(aggregate.tags),
        aggregate,
      });
    }
  }
  for (const { indicator } of records) {
    const key = keyOf(indicator.type, indicator.value);
    if (!states.has(key)) {
      states.set(key, {
        id: null,
        type: indicator.type,
        value: indicator.value,
        stored: null,
        storedTags: [],
        aggregate: { seen_at: now, tags: "[]", sources: "[]", source_count: 0 },
      });
    }
  }
  return states;
}

async function loadSightings(trx: Kysely<Database>, source: string, ids: number[]) {
  const stored = new Map<string, SightingRow>();
  for (const part of chunk(ids, 500)) {
    const rows = await trx
      .selectFrom("indicator_sightings")
      .selectAll()
      .where("source", "=", source)
      .where("indicator_id", "in", part)
      .execute();
    for (const { indicator_id, port, source: _source, imported_at: _importedAt, ...row } of rows) {
      stored.set(`${indicator_id}:${port}`, row);
    }
  }
  return stored;
}

function sameRow(a: SightingRow, b: SightingRow): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

async function writeBatch(trx: Kysely<Database>, records: IocSighting[], ctx: WriteContext): Promise<void> {
  const now = ctx.now.toISOString();
  const indicators = await loadIndicators(trx, records, now);
  const existingIds = [...indicators.values()].flatMap((s) => (s.id === null ? [] : [s.id]));
  const storedSightings = await loadSightings(trx, ctx.source, existingIds);

  const sightings = new Map<string, SightingState>();
  const links = new Map<string, { cve: string; indicator: IndicatorState }>();
  for (const record of records) {
    ctx.noteRecordDate(record.lastSeen ?? record.firstSeen);
    const indicator = indicators.get(keyOf(record.indicator.type, record.indicator.value));
    if (!indicator) continue;
    const port = record.port ?? 0;
    const key = `${keyOf(indicator.type, indicator.value)}\u0000${port}`;
    const state =
      sightings.get(key) ??
      (() => {
        const stored = indicator.id === null ? null : (storedSightings.get(`${indicator.id}:${port}`) ?? null);
        return { indicator, port, stored, row: stored } as SightingState;
      })();
    const before: SightingRow | null = state.row ?? null;
    const merged = mergeSighting(before, record);
    ctx.counts[before === null ? "added" : sameRow(before, merged) ? "unchanged" : "updated"] += 1;
    state.row = merged;
    sightings.set(key, state);
    indicator.aggregate = mergeAggregate(indicator.aggregate, ctx.source, merged);
    for (const cve of record.cves ?? []) links.set(`${cve}\u0000${key}`, { cve, indicator });
  }

  const fresh = [...indicators.values()].filter((s) => s.id === null);
  for (const part of chunk(fresh, 500)) {
    const rows = await trx
      .insertInto("indicators")
      .values(part.map((s) => ({ type: s.type, value: s.value, ...s.aggregate })))
      .returning(["id", "type", "value"])
      .execute();
    const byKey = new Map(part.map((s) => [keyOf(s.type, s.value), s]));
    for (const row of rows) {
      const state = byKey.get(keyOf(row.type, row.value));
      if (state) state.id = row.id;
    }
  }
  const changedIndicators = [...indicators.values()].filter(
    (s): s is IndicatorState & { id: number } =>
      s.id !== null && s.stored !== null && s.stored !== JSON.stringify(s.aggregate),
  );
  for (const part of chunk(changedIndicators, 400)) {
    await trx
      .insertInto("indicators")
      .values(part.map((s) => ({ id: s.id, type: s.type, value: s.value, ...s.aggregate })))
      .onConflict((oc) => oc.column("id").doUpdateSet(excludedColumns(AGGREGATE_COLUMNS)))
      .execute();
  }

  const rowFor = (s: SightingState) => ({
    indicator_id: s.indicator.id ?? 0,
    source: ctx.source,
    port: s.port,
    imported_at: now,
    ...s.row,
  });
  const sightingStates = [...sightings.values()];
  await insertRows(trx, "indicator_sightings", sightingStates.filter((s) => s.stored === null).map(rowFor));
  const changedSightings = sightingStates.filter((s) => s.stored !== null && !sameRow(s.stored, s.row));
  for (const part of chunk(changedSightings, 400)) {
    await trx
      .insertInto("indicator_sightings")
      .values(part.map(rowFor))
      .onConflict((oc) =>
        oc.columns(["indicator_id", "source", "port"]).doUpdateSet(excludedColumns(SIGHTING_COLUMNS)),
      )
      .execute();
  }

  // Tags only grow (see union), so only the ones an indicator did not have need a row.
  const tagRows = [...indicators.values()].flatMap((s) => {
    if (s.id === null || s.stored === JSON.stringify(s.aggregate)) return [];
    const id = s.id;
    const before = new Set<string>(s.storedTags);
    return (JSON.parse(s.aggregate.tags ?? "[]") as string[])
      .filter((tag) => !before.has(tag))
      .map((tag) => ({ tag, indicator_id: id }));
  });
  // In key order, so the inserts walk the tag index instead of jumping about it.
  tagRows.sort((a, b) => (a.tag < b.tag ? -1 : a.tag > b.tag ? 1 : a.indicator_id - b.indicator_id));
  for (const part of chunk(tagRows, 4_000)) {
    await trx.insertInto("indicator_tags").values(part).onConflict((oc) => oc.doNothing()).execute();
  }
  const linkRows = [...links.values()].flatMap(({ cve, indicator }) =>
    indicator.id === null ? [] : [{ cve_id: cve, indicator_id: indicator.id, source: ctx.source }],
  );
  for (const part of chunk(linkRows, 2_000)) {
    await trx.insertInto("indicator_cves").values(part).onConflict((oc) => oc.doNothing()).execute();
  }
}

/**
 * Stores IOC sightings (shared/types/ioc.ts) from any IOC feed: one
 * indicator per canonical (type, value), one sighting per feed and port,
 * merged across the feed's records so that re-reading a feed is a no-op.
 */
export function indicatorImporter(): Importer<IocSighting> {
  return {
    batchSize: 2_000,
    writeBatch,
    async countRecords(trx, source) {
      const row = await trx
        .selectFrom("indicator_sightings")
        .select((eb) => eb.fn.countAll<number>().as("n"))
        .where("source", "=", source)
        .executeTakeFirst();
      return Number(row?.n ?? 0);
    },
  };
}
