import { createReadStream } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseMaltrailTar } from "../../../server/feeds/ioc/maltrail";
import { loadPipelineConfig } from "../../../server/pipeline/config";
import type { ImportOutcome } from "../../../server/pipeline/run";
import { syncSource } from "../../../server/pipeline/sync";
import { createTestDatabase, recordingLogger, snapshot, snapshotDir, type TestDatabase } from "../../helpers/feed-server";

/**
 * Maltrail's 1.85 M static trails synced through syncSource from the mirror
 * into a fresh database, checked against what the parser itself reads from
 * the same archive. Slow: on the 2-core development machine the whole file
 * (parser pass and import) took 4.5 minutes, and the import alone 8 minutes
 * when other work was running.
 */
const NOW = new Date("2026-08-23T00:00:00Z");
const TIMEOUT_MS = 30 * 60_000;
const { logger } = recordingLogger();

let db: TestDatabase;
let outcome: ImportOutcome;
/** The parser's own view: accepted records, rejections, and distinct (type, value, port) sightings by type. */
const parsed = { records: 0, rejected: 0, sightings: 0, byType: {} as Record<string, number> };

interface Sighting {
  type: string;
  port: number;
  threat_type: string | null;
  malware_family: string | null;
  tags: string;
  reference: string | null;
  raw_value: string;
  first_seen: string | null;
}

async function sightingsOf(value: string): Promise<Sighting[]> {
  return db.db
    .selectFrom("indicators")
    .innerJoin("indicator_sightings as s", "s.indicator_id", "indicators.id")
    .select(["indicators.type", "s.port", "s.threat_type", "s.malware_family", "s.tags", "s.reference", "s.raw_value", "s.first_seen"])
    .where("indicators.value", "=", value)
    .where("s.source", "=", "maltrail")
    .orderBy("s.port")
    .execute();
}

beforeAll(async () => {
  const archive = snapshot("maltrail", "maltrail_trails_static.tar.gz");
  const keys = new Set<string>();
  for await (const result of parseMaltrailTar(createReadStream(archive))) {
    if (!result.ok) {
      parsed.rejected += 1;
      continue;
    }
    parsed.records += 1;
    const { indicator, port } = result.record;
    const key = `${indicator.type}\u0000${indicator.value}\u0000${port ?? 0}`;
    if (keys.has(key)) continue;
    keys.add(key);
    parsed.byType[indicator.type] = (parsed.byType[indicator.type] ?? 0) + 1;
  }
  parsed.sightings = keys.size;
  keys.clear();

  db = await createTestDatabase();
  outcome = await syncSource("maltrail", { db: db.db, config: loadPipelineConfig({}), logger, mirrorDir: snapshotDir, now: () => NOW });
}, TIMEOUT_MS);

afterAll(async () => {
  await db?.dispose();
});

describe("maltrail through the pipeline (real snapshot)", () => {
  it("accounts for every trail the parser reads, and stores one sighting per distinct trail", async () => {
    expect(outcome).toMatchObject({ status: "ok", error: null });
    const { added, updated, unchanged, rejected, removed } = outcome.counts;
    // PROVENANCE.md: 1,852,460 trails.
    expect(parsed.records + parsed.rejected).toBe(1_852_460);
    expect(added + updated + unchanged + rejected).toBe(parsed.records + parsed.rejected);
    expect(rejected).toBe(parsed.rejected);
    expect(removed).toBe(0);
    // Repeats of a trail (in several files, or with another port) fold into one sighting.
    expect(added).toBe(parsed.sightings);
    expect(outcome.recordCount).toBe(parsed.sightings);

    const byType = await db.db
      .selectFrom("indicator_sightings as s")
      .innerJoin("indicators", "indicators.id", "s.indicator_id")
      .select(["indicators.type", (eb) => eb.fn.countAll().as("n")])
      .where("s.source", "=", "maltrail")
      .groupBy("indicators.type")
      .execute();
    expect(Object.fromEntries(byType.map((row) => [row.type, Number(row.n)]))).toEqual(parsed.byType);
    const row = await db.db.selectFrom("sources").selectAll().where("name", "=", "maltrail").executeTakeFirstOrThrow();
    expect(row).toMatchObject({ status: "ok", added, rejected, record_count: parsed.sightings, last_error: null });
  });

  it("keeps the family from the file name, the aliases as tags and the reference, per real trail", async () => {
    // trails/static/malware/emotet.txt: "66.210.228.178:443" and ":80" under "# Aliases: Emotet, Heodo, Geodo".
    const emotet = await sightingsOf("66.210.228.178");
    expect(emotet.map((s) => [s.type, s.port, s.raw_value])).toEqual([
      ["ipv4", 80, "66.210.228.178:80"],
      ["ipv4", 443, "66.210.228.178:443"],
    ]);
    expect(emotet[1]).toMatchObject({
      threat_type: "malware",
      malware_family: "emotet",
      reference: "https://twitter.com/_lockhum/status/1221213324525867008",
      first_seen: null,
    });
    expect(JSON.parse(emotet[1]!.tags)).toEqual(["Emotet", "Heodo", "Geodo"]);
    const indicator = await db.db.selectFrom("indicators").selectAll().where("value", "=", "66.210.228.178").executeTakeFirstOrThrow();
    expect(indicator).toMatchObject({ type: "ipv4", malware_family: "emotet", threat_type: "malware", source_count: 1 });
    expect(JSON.parse(indicator.sources)).toEqual(["maltrail"]);

    // A scheme-less host/path trail in malware/absent.txt is stored as an http:// URL.
    const putty = await sightingsOf("http://the.earth.li/~sgtatham/putty/latest/w64/putty.exe");
    expect(putty).toHaveLength(1);
    expect(putty[0]).toMatchObject({ type: "url", malware_family: "absent", raw_value: "the.earth.li/~sgtatham/putty/latest/w64/putty.exe" });

    // Category files name no family: the file name is a tag instead.
    expect(await sightingsOf("5.63.151.0/24")).toEqual([
      expect.objectContaining({ type: "cidr", threat_type: "mass_scanner", malware_family: null, tags: '["mass_scanner_cidr"]' }),
    ]);
    expect(await sightingsOf("onion.gq")).toEqual([
      expect.objectContaining({
        type: "domain",
        threat_type: "suspicious",
        malware_family: null,
        tags: '["onion"]',
        reference: "http://malwaretips.com/threads/connects-to-tor-hidden-services-through-tor2web.42274/",
      }),
    ]);
  });
});
