import { cp, mkdir } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadPipelineConfig } from "../../../server/pipeline/config";
import type { ImportOutcome } from "../../../server/pipeline/run";
import { syncSource } from "../../../server/pipeline/sync";
import { buildWarninglistMatcher, createWarninglistMatcherBuilder } from "../../../server/ioc/warninglist-match";
import { loadWarninglistMatcher } from "../../../server/ioc/warninglists";
import { encodeWarninglistSnapshot, WARNINGLIST_SNAPSHOT_FORMAT } from "../../../server/ioc/warninglist-snapshot";
import { loadWarninglists } from "../../../server/feeds/warninglists/parse";
import { normalizeIndicator } from "../../../shared/ioc/normalize";
import { createTestDatabase, recordingLogger, snapshot, snapshotDir, type TestDatabase } from "../../helpers/feed-server";
import { expectIndicatorStatsAgree } from "../../helpers/indicator-stats";

/**
 * The IOC-side sources imported from the real snapshots through the mirror
 * layout: MISP warninglists, signature-base and TweetFeed (CSV, MISP, STIX),
 * checked against PROVENANCE.md and the files themselves.
 */
const NOW = new Date("2026-08-23T00:00:00Z");
const config = loadPipelineConfig({});
const { logger } = recordingLogger();
let db: TestDatabase;
const outcomes = new Map<string, ImportOutcome>();

function sync(name: string, env: Record<string, string> = {}) {
  return syncSource(name, { store: db.store, config: loadPipelineConfig(env), logger, mirrorDir: snapshotDir, now: () => NOW });
}

async function count(table: "warninglists" | "warninglist_entries" | "indicator_sightings" | "indicator_cves"): Promise<number> {
  return Number(
    (
      await db.db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll().as("n"))
        .executeTakeFirstOrThrow()
    ).n,
  );
}

async function cvesOf(value: string): Promise<string[]> {
  const rows = await db.db
    .selectFrom("indicator_cves")
    .innerJoin("indicators", "indicators.id", "indicator_cves.indicator_id")
    .select("indicator_cves.cve_id")
    .where("indicators.value", "=", value)
    .orderBy("indicator_cves.cve_id")
    .execute();
  return rows.map((row) => row.cve_id);
}

beforeAll(async () => {
  db = await createTestDatabase();
  for (const name of ["misp-warninglists", "signature-base", "tweetfeed"]) {
    outcomes.set(name, await syncSource(name, { store: db.store, config, logger, mirrorDir: snapshotDir, now: () => NOW }));
  }
});

afterAll(async () => {
  await db?.dispose();
});

describe("the indicator statistics tables", () => {
  it("count every imported indicator by type, threat type, family and day, in all and per source, as the imports left them (small merges and rebuilds alike)", async () => {
    const { rows, sourceRows } = await expectIndicatorStatsAgree(db.db);
    expect(rows).toBeGreaterThan(100);
    expect(sourceRows).toBeGreaterThanOrEqual(rows);
  });
});

describe("MISP warninglists", () => {
  it("stores the 41 lists and 269,049 entries PROVENANCE.md counts", async () => {
    expect(outcomes.get("misp-warninglists")).toMatchObject({
      status: "ok",
      counts: { added: 41, updated: 0, unchanged: 0, rejected: 0, removed: 0 },
      recordCount: 41,
    });
    expect(await count("warninglists")).toBe(41);
    expect(await count("warninglist_entries")).toBe(269_049);
    const total = await db.db
      .selectFrom("warninglists")
      .select((eb) => eb.fn.sum<number>("entry_count").as("n"))
      .executeTakeFirstOrThrow();
    expect(Number(total.n)).toBe(269_049);
    const dns = await db.db.selectFrom("warninglists").selectAll().where("name", "=", "public-dns-v4").executeTakeFirstOrThrow();
    expect(dns).toMatchObject({ type: "cidr", version: "20240615", entry_count: 62_745, title: "List of known IPv4 public DNS resolvers" });
    expect(JSON.parse(dns.matching_attributes)).toContain("ip-dst");
  });

  it("answers which lists hold 8.8.8.8, by entry, through the matcher the import packed and through one built from the entries", async () => {
    const exact = await db.db.selectFrom("warninglist_entries").select("list_name").where("value", "=", "8.8.8.8").execute();
    expect(exact.map((row) => row.list_name)).toEqual(["public-dns-v4"]);

    const [packed, ...more] = await db.db.selectFrom("warninglist_matcher").select(["format", "data"]).execute();
    expect(more).toEqual([]);
    expect(packed?.format).toBe(WARNINGLIST_SNAPSHOT_FORMAT);
    const stored = await loadWarninglistMatcher(db.db);
    expect(stored.match(normalizeIndicator("8.8.8.8")!)).toContainEqual({ list: "public-dns-v4", type: "cidr", entry: "8.8.8.8" });

    // Without the packed matcher (a database migrated since the warninglists' last import), or with one
    // this build cannot read, it is built from the entries, read in pages: the event loop turned meanwhile.
    await db.db.deleteFrom("warninglist_matcher").execute();
    let turns = 0;
    const counting = setInterval(() => (turns += 1), 0);
    const built = await loadWarninglistMatcher(db.db).finally(() => clearInterval(counting));
    expect(turns).toBeGreaterThan(0);
    await db.db
      .insertInto("warninglist_matcher")
      .values({ format: WARNINGLIST_SNAPSHOT_FORMAT, data: Buffer.from("not a snapshot") })
      .execute();
    const besideDamaged = await loadWarninglistMatcher(db.db);
    await db.db.deleteFrom("warninglist_matcher").execute();
    // A readable packed matcher is what is loaded, whatever the entries say.
    const other = createWarninglistMatcherBuilder();
    other.addEntries(other.addList({ name: "only-this", type: "string" }), ["8.8.8.8"]);
    await db.db
      .insertInto("warninglist_matcher")
      .values({ format: WARNINGLIST_SNAPSHOT_FORMAT, data: encodeWarninglistSnapshot(other.pack()) })
      .execute();
    expect((await loadWarninglistMatcher(db.db)).match(normalizeIndicator("8.8.8.8")!)).toEqual([{ list: "only-this", type: "string", entry: "8.8.8.8" }]);
    await db.db.deleteFrom("warninglist_matcher").execute();
    await db.db.insertInto("warninglist_matcher").values(packed!).execute();

    // The same answers, and the same as the matcher built straight from the publisher's files.
    const fromFiles = buildWarninglistMatcher((await loadWarninglists(snapshot("misp-warninglists", "lists"))).lists);
    for (const matcher of [stored, built, besideDamaged]) expect(matcher.skipped).toEqual(fromFiles.skipped);
    for (const raw of [
      "8.8.8.8",
      "1.1.1.1",
      "http://8.8.8.8/dns-query",
      "2001:4860:4860::8888",
      "10.1.2.3",
      "192.168.0.0/24",
      "fe80::1",
      "google.com",
      "www.google.com",
      "https://www.google.com/search?q=x",
      "mail.yahoo.com",
      "d41d8cd98f00b204e9800998ecf8427e",
      "evil.example.net",
    ]) {
      const value = normalizeIndicator(raw)!;
      const expected = fromFiles.match(value);
      expect(stored.match(value), raw).toEqual(expected);
      expect(built.match(value), raw).toEqual(expected);
      expect(besideDamaged.match(value), raw).toEqual(expected);
    }
  });

  it("skips the unchanged lists on a re-import, and drops a list the publisher no longer has", async () => {
    const again = await sync("misp-warninglists");
    expect(again.status).toBe("not-modified");
    expect(again.counts).toEqual({ added: 0, updated: 0, unchanged: 0, rejected: 0, removed: 0 });
    expect(await count("warninglist_entries")).toBe(269_049);

    const lists = join(db.dir, "lists");
    for (const name of ["rfc1918", "multicast"]) {
      await mkdir(join(lists, name), { recursive: true });
      await cp(snapshot("misp-warninglists", "lists", name, "list.json"), join(lists, name, "list.json"));
    }
    const fewer = await sync("misp-warninglists", { SOURCE_MISP_WARNINGLISTS_URL: lists });
    expect(fewer.counts).toEqual({ added: 0, updated: 0, unchanged: 2, rejected: 0, removed: 39 });
    const left = await db.db.selectFrom("warninglists").select("name").orderBy("name").execute();
    expect(left.map((row) => row.name)).toEqual(["multicast", "rfc1918"]);
    const entries = await db.db.selectFrom("warninglist_entries").select("list_name").distinct().orderBy("list_name").execute();
    expect(entries.map((row) => row.list_name)).toEqual(["multicast", "rfc1918"]);
    // The packed matcher went with them.
    const ofTwo = await loadWarninglistMatcher(db.db);
    expect(ofTwo.match(normalizeIndicator("8.8.8.8")!)).toEqual([]);
    expect(ofTwo.match(normalizeIndicator("10.1.2.3")!)).toEqual([{ list: "rfc1918", type: "cidr", entry: "10.0.0.0/8" }]);

    const restored = await sync("misp-warninglists");
    expect(restored.counts).toEqual({ added: 39, updated: 0, unchanged: 2, rejected: 0, removed: 0 });
    expect(await count("warninglist_entries")).toBe(269_049);
    expect((await loadWarninglistMatcher(db.db)).match(normalizeIndicator("8.8.8.8")!)).toContainEqual({
      list: "public-dns-v4",
      type: "cidr",
      entry: "8.8.8.8",
    });
  });
});

describe("signature-base", () => {
  it("stores every distinct value of the 1,844 C2 entries and 3,224 hashes, one sighting per campaign that lists it", async () => {
    const outcome = outcomes.get("signature-base");
    expect(outcome).toMatchObject({ status: "ok", counts: { rejected: 0 } });
    const indicators = await db.db
      .selectFrom("indicator_sightings")
      .innerJoin("indicators", "indicators.id", "indicator_sightings.indicator_id")
      .select(["indicators.type", (eb) => eb.fn.count("indicators.id").distinct().as("n")])
      .where("indicator_sightings.source", "=", "signature-base")
      .groupBy("indicators.type")
      .execute();
    const byType = Object.fromEntries(indicators.map((row) => [row.type, Number(row.n)]));
    // Some values are listed twice (under two campaigns); distinct values, lower-cased, by length:
    // 986 × 32, 893 × 40, 1,174 × 64 in hash-iocs.txt, and 1,773 in c2-iocs.txt.
    expect(byType).toEqual({ md5: 986, sha1: 893, sha256: 1_174, domain: 1_655, ipv4: 118 });
    // A value listed under two campaigns keeps both statements.
    const row = await db.db
      .selectFrom("indicator_sightings")
      .select((eb) => eb.fn.countAll().as("n"))
      .where("source", "=", "signature-base")
      .executeTakeFirstOrThrow();
    const sightings = Number(row.n);
    expect(outcome?.recordCount).toBe(sightings);
    expect(sightings).toBeGreaterThan(Object.values(byType).reduce((a, b) => a + b, 0));
  });

  it("links indicators to the CVEs their description or group names", async () => {
    // hash-iocs.txt: "58a74dce…4495;Lazarus campaign … Vir.IT driver for CVE-2017-16238 - https://…"
    expect(await cvesOf("58a74dceb2022cd8a358b92acd1b48a5e01c524c3b0195d7033e4bd55eff4495")).toEqual(["CVE-2017-16238"]);
    // "827d507a…;Barracuda ESG exploitation - CVE-2023-2868 - mod_udp.so SALTWATER Variant …"
    expect(await cvesOf("827d507aa3bde0ef903ca5dec60cdec8")).toEqual(["CVE-2023-2868"]);
    // c2-iocs.txt: the "# Papercut exploitation … (CVE-2023-27351) and … (CVE-2023-27350)" group.
    const papercut = await db.db
      .selectFrom("indicator_cves")
      .select(["cve_id", (eb) => eb.fn.countAll().as("n")])
      .where("source", "=", "signature-base")
      .where("cve_id", "in", ["CVE-2023-27350", "CVE-2023-27351"])
      .groupBy("cve_id")
      .execute();
    expect(papercut).toHaveLength(2);
    expect(papercut.every((row) => Number(row.n) > 0)).toBe(true);
  });

  it("skips the unchanged files on a re-import", async () => {
    const links = await count("indicator_cves");
    const again = await sync("signature-base");
    expect(again.status).toBe("not-modified");
    expect(again.counts).toEqual({ added: 0, updated: 0, unchanged: 0, rejected: 0, removed: 0 });
    expect(await count("indicator_cves")).toBe(links);
  });
});

describe("TweetFeed", () => {
  it("imports the daily CSV files, the MISP feed and the STIX bundle into one source", async () => {
    const outcome = outcomes.get("tweetfeed");
    expect(outcome?.status).toBe("ok");
    const read = (outcome!.records ?? 0) + outcome!.counts.rejected;
    // 314,705 CSV rows + 110,682 MISP attributes + 1,536 STIX indicators.
    expect(read).toBe(66_406 + 180_995 + 67_304 + 110_682 + 1_536);
    expect(outcome!.counts.rejected).toBeLessThan(read / 100);
  });
});
