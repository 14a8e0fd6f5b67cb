import { createReadStream } from "node:fs";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync, gzipSync } from "node:zlib";
import { sql } from "kysely";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { tarFiles } from "../../../server/feeds/toolkit/archive";
import { parseMaltrailTar } from "../../../server/feeds/ioc/maltrail";
import { loadPipelineConfig } from "../../../server/pipeline/config";
import type { ImportOutcome } from "../../../server/pipeline/run";
import { getSource, SOURCE_NAMES, type SourceName } from "../../../server/pipeline/source-catalogue";
import { syncSource } from "../../../server/pipeline/sync";
import {
  createTestDatabase,
  jsonLines,
  recordingLogger,
  snapshot,
  startFeedServer,
  writeTarGz,
  writeZip,
  type FeedServer,
  type TestDatabase,
} from "../../helpers/feed-server";

/** The publishers' own paths (cisa.gov, epss.empiricalsecurity.com), served from the snapshots. */
const KEV_PATH = "/sites/default/files/feeds/known_exploited_vulnerabilities.json";
const EPSS_PATH = "/epss_scores-current.csv.gz";

let server: FeedServer;
let db: TestDatabase;
const { logger } = recordingLogger();

function configFor(server: FeedServer) {
  return loadPipelineConfig({
    SOURCE_CISA_KEV_URL: server.url(KEV_PATH),
    SOURCE_EPSS_URL: server.url(EPSS_PATH),
  });
}

async function sync(name: "cisa-kev" | "epss") {
  return syncSource(name, { store: db.store, config: configFor(server), logger, now: () => new Date("2025-09-01T00:00:00Z") });
}

async function kevRows(): Promise<number> {
  const row = await db.db
    .selectFrom("kev_entries")
    .select((eb) => eb.fn.countAll().as("n"))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The first lines of the EPSS snapshot: what these tests check does not need all 360,142 scores in each test's fresh database. */
const EPSS_SAMPLE_LINES = 2_000;

describe("downloads over HTTP", () => {
  let sampleDir: string;

  beforeAll(async () => {
    sampleDir = await mkdtemp(join(tmpdir(), "threat-radar-epss-sample-"));
    const lines = gunzipSync(await readFile(snapshot("epss", "emba_epss_CVE_all_years_2026-08-16.csv.gz")))
      .toString("utf8")
      .split("\n")
      .slice(0, EPSS_SAMPLE_LINES);
    const sample = join(sampleDir, "epss_scores-current.csv.gz");
    await writeFile(sample, gzipSync(lines.join("\n") + "\n"));
    server = await startFeedServer({
      [KEV_PATH]: snapshot("cisa-kev", "known_exploited_vulnerabilities.json"),
      [EPSS_PATH]: sample,
    });
  });

  afterAll(async () => {
    await server?.close();
    await db?.dispose();
    if (sampleDir) await rm(sampleDir, { recursive: true, force: true });
  });

  beforeEach(async () => {
    await db?.dispose();
    db = await createTestDatabase();
    server.requests.length = 0;
    server.setBehaviour(KEV_PATH, "normal");
    server.setBehaviour(EPSS_PATH, "normal");
  });

  it("imports KEV from the publisher's path and stores the validators", async () => {
    const outcome = await sync("cisa-kev");
    expect(outcome).toMatchObject({ status: "ok", counts: { added: 1_404, rejected: 0 } });
    const files = await db.db.selectFrom("source_files").selectAll().execute();
    expect(files).toHaveLength(1);
    expect(files[0]).toMatchObject({ source: "cisa-kev", location: server.url(KEV_PATH) });
    expect(files[0]?.etag).toMatch(/^"/);
    expect(files[0]?.last_modified).not.toBeNull();
  });

  it("sends a conditional request next time and treats 304 as unchanged", async () => {
    await sync("cisa-kev");
    const second = await sync("cisa-kev");
    expect(second.status).toBe("not-modified");
    expect(server.requests.at(-1)).toMatchObject({ status: 304 });
    expect(server.requests.at(-1)?.ifNoneMatch).toMatch(/^"/);
    const row = await db.db.selectFrom("sources").selectAll().where("name", "=", "cisa-kev").executeTakeFirstOrThrow();
    // The last import's counts stay: a 304 says nothing about the records.
    expect(row).toMatchObject({ status: "not-modified", added: 1_404, record_count: 1_404, last_error: null });
    expect(await kevRows()).toBe(1_404);
  });

  it("fails on a truncated body and keeps the previous data", async () => {
    await sync("cisa-kev");
    await db.db.deleteFrom("source_files").execute();
    server.setBehaviour(KEV_PATH, "truncated-body");
    const outcome = await sync("cisa-kev");
    expect(outcome.status).toBe("failed");
    expect(outcome.error).toBeTruthy();
    expect(await kevRows()).toBe(1_404);
    const row = await db.db.selectFrom("sources").selectAll().where("name", "=", "cisa-kev").executeTakeFirstOrThrow();
    expect(row).toMatchObject({ status: "failed", added: 1_404, record_count: 1_404 });
    expect(row.last_error).toBeTruthy();
    expect(row.last_success_at).not.toBeNull();
  });

  it("fails on a truncated gzip and changes nothing", async () => {
    server.setBehaviour(EPSS_PATH, "truncated-content");
    const outcome = await sync("epss");
    expect(outcome.status).toBe("failed");
    expect(outcome.error).toMatch(/unexpected end of file/);
    const row = await db.db
      .selectFrom("epss_scores")
      .select((eb) => eb.fn.countAll().as("n"))
      .executeTakeFirstOrThrow();
    expect(Number(row.n)).toBe(0);
    expect(await db.db.selectFrom("source_files").selectAll().execute()).toEqual([]);
  });

  it("retries a temporarily unavailable publisher", async () => {
    server.setBehaviour(KEV_PATH, "unavailable-once");
    const outcome = await sync("cisa-kev");
    expect(outcome.status).toBe("ok");
    expect(server.requests.map((r) => r.status)).toEqual([503, 200]);
  });

  it("takes the score date from the file when a feed has no score_date line", async () => {
    const outcome = await sync("epss");
    expect(outcome).toMatchObject({ status: "ok", counts: { added: EPSS_SAMPLE_LINES } });
    const dates = await db.db.selectFrom("epss_scores").select("score_date").distinct().execute();
    // The download has no date in its name, so its Last-Modified day is the score date.
    expect(dates).toHaveLength(1);
    expect(dates[0]?.score_date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });
});

/**
 * Every source that has a snapshot, served at its publisher's own path (the
 * path of its default URL in server/pipeline/source-catalogue.ts) and synced through
 * the real HTTP code path in the order a full sync runs. Where the publisher
 * serves another packaging than the snapshot's, the real snapshot content is
 * repackaged at test time: GitHub repository tarballs for cvelistV5 (CVE
 * records of 1999-2016), Trickest (2024), maltrail (three trail files) and
 * the MISP warninglists; MITRE's ZIP for the CWE catalogue; TweetFeed's
 * month.csv gunzipped. MalwareBazaar's snapshot is its MD5 text export, served
 * at that export's path. NVD, ThreatFox and URLhaus have no snapshot; the
 * cvelistV5 delta log has none either, so cve-json5 is pointed at its tarball
 * alone. TweetFeed's MISP feed is covered by misp-feed.test.ts.
 */
describe("a full sync over HTTP from the publishers' paths", () => {
  const NOW = new Date("2026-08-23T00:00:00Z");
  const CVE_YEARS = Array.from({ length: 18 }, (_, i) => 1999 + i);
  const MALTRAIL_FILES = ["trails/static/malware/emotet.txt", "trails/static/suspicious/onion.txt", "trails/static/mass_scanner_cidr.txt"];
  const MALWAREBAZAAR_MD5_PATH = "/export/txt/md5/recent/";
  /** The files' time in the GitHub archives served (the commit's, as GitHub writes it). */
  const COMMIT_TIME = new Date("2026-08-22T21:01:36Z");
  /** The feeds the snapshots have no copy of; every other source is served and synced, in sync order. */
  const WITHOUT_SNAPSHOT: readonly SourceName[] = ["nvd", "threatfox", "urlhaus"];
  const SYNCED = SOURCE_NAMES.filter((name) => !WITHOUT_SNAPSHOT.includes(name));

  let tmp: string;
  let publisher: FeedServer;
  let full: TestDatabase;
  const expected = { cveRecords: 0, maltrail: { records: 0, rejected: 0, sightings: 0 } };
  const first = new Map<string, ImportOutcome>();

  const pathOf = (name: SourceName, index = 0) => new URL(getSource(name)!.defaultLocations[index]!).pathname;
  function env(): Record<string, string> {
    const url = (name: SourceName, index = 0) => publisher.url(pathOf(name, index));
    return {
      // The tarball only: the delta log has no snapshot.
      SOURCE_CVE_JSON5_URL: url("cve-json5", 1),
      SOURCE_CISA_KEV_URL: url("cisa-kev"),
      SOURCE_EPSS_URL: url("epss"),
      SOURCE_TRICKEST_POC_URL: url("trickest-poc"),
      SOURCE_MITRE_CWE_URL: url("mitre-cwe"),
      SOURCE_FEODOTRACKER_URL: url("feodotracker"),
      SOURCE_MALWAREBAZAAR_URL: publisher.url(MALWAREBAZAAR_MD5_PATH),
      SOURCE_TWEETFEED_URL: url("tweetfeed"),
      SOURCE_SIGNATURE_BASE_URL: `${url("signature-base", 0)},${url("signature-base", 1)}`,
      SOURCE_MALTRAIL_URL: url("maltrail"),
      SOURCE_MISP_WARNINGLISTS_URL: url("misp-warninglists"),
    };
  }
  const syncFull = (name: string) => syncSource(name, { store: full.store, config: loadPipelineConfig(env()), logger, now: () => NOW });

  /** Row counts of the tables the synced sources fill. */
  async function tableCounts(): Promise<Record<string, number>> {
    const tables = [
      "cves",
      "kev_entries",
      "epss_scores",
      "cve_exploits",
      "cwes",
      "indicators",
      "indicator_sightings",
      "warninglist_entries",
      "source_records",
    ] as const;
    const counts: Record<string, number> = {};
    for (const table of tables) {
      counts[table] = Number(
        (
          await full.db
            .selectFrom(table)
            .select((eb) => eb.fn.countAll().as("n"))
            .executeTakeFirstOrThrow()
        ).n,
      );
    }
    return counts;
  }

  /**
   * The EPSS figures of the database, in a form that does not depend on the
   * order rows are added up in (PostgreSQL sums doubles in no fixed order, so
   * a sum of the raw scores can differ in its last digits between two reads of
   * the same rows): each score is scaled to an integer first (EPSS has nine
   * decimals, priority scores fewer), and integers add up exactly.
   */
  async function epssDigest() {
    const scaled = (column: string, scale: number) => sql<string>`sum(cast(round(${sql.ref(column)} * ${sql.lit(scale)}) as bigint))`;
    const scores = await full.db
      .selectFrom("epss_scores")
      .select([
        (eb) => eb.fn.countAll().as("n"),
        scaled("epss", 1e9).as("epss"),
        scaled("percentile", 1e9).as("percentile"),
        (eb) => eb.fn.max("score_date").as("day"),
      ])
      .executeTakeFirstOrThrow();
    const cves = await full.db
      .selectFrom("cves")
      .select([scaled("epss", 1e9).as("epss"), scaled("priority_score", 1e6).as("priority"), (eb) => eb.fn.count("epss_date").as("dated")])
      .executeTakeFirstOrThrow();
    // The drivers return a sum as a number (SQLite) or a string (PostgreSQL's bigint sums); compare them as text.
    return JSON.parse(JSON.stringify({ scores, cves }, (_, value) => (typeof value === "number" ? String(value) : value)));
  }

  beforeAll(async () => {
    tmp = await mkdtemp(join(tmpdir(), "threat-radar-publishers-"));
    const file = (name: string) => join(tmp, name);

    expected.cveRecords = await writeTarGz(
      file("cvelistV5-main.tar.gz"),
      (async function* () {
        for (const year of CVE_YEARS) {
          for await (const record of jsonLines<{ cveMetadata: { cveId: string } }>(snapshot("cve-json5-vulnrichment", `vulnrichment_cve5_${year}.jsonl.gz`))) {
            const id = record.cveMetadata.cveId;
            const thousands = Math.floor(Number(id.split("-")[2]) / 1000);
            yield { name: `cvelistV5-main/cves/${year}/${thousands}xxx/${id}.json`, content: JSON.stringify(record) };
          }
        }
      })(),
      COMMIT_TIME,
    );
    await writeTarGz(
      file("trickest-main.tar.gz"),
      (async function* () {
        for await (const entry of jsonLines<{ path: string; content: string }>(snapshot("trickest-cve-poc", "trickest_cve_md_2024.jsonl.gz"))) {
          yield { name: `cve-main/${entry.path}`, content: entry.content };
        }
      })(),
      COMMIT_TIME,
    );
    const lists = snapshot("misp-warninglists", "lists");
    await writeTarGz(
      file("misp-warninglists-main.tar.gz"),
      (async function* () {
        for (const name of (await readdir(lists)).sort()) {
          yield { name: `misp-warninglists-main/lists/${name}/list.json`, content: await readFile(join(lists, name, "list.json")) };
        }
      })(),
      COMMIT_TIME,
    );
    const trails: Array<{ name: string; content: Buffer }> = [];
    for await (const entry of tarFiles(createReadStream(snapshot("maltrail", "maltrail_trails_static.tar.gz")))) {
      if (!MALTRAIL_FILES.includes(entry.name)) continue;
      const chunks: Buffer[] = [];
      for await (const chunk of entry.body) chunks.push(Buffer.from(chunk));
      trails.push({ name: `maltrail-master/${entry.name}`, content: Buffer.concat(chunks) });
    }
    expect(trails).toHaveLength(MALTRAIL_FILES.length);
    await writeTarGz(file("maltrail-master.tar.gz"), trails, COMMIT_TIME);
    const keys = new Set<string>();
    for await (const result of parseMaltrailTar(createReadStream(file("maltrail-master.tar.gz")))) {
      if (!result.ok) {
        expected.maltrail.rejected += 1;
        continue;
      }
      expected.maltrail.records += 1;
      // One sighting per value and port, reporter, family, reference and tag set.
      const { indicator, port, reporter, malwareFamily, reference, tags } = result.record;
      keys.add(JSON.stringify([indicator.type, indicator.value, port ?? null, reporter, malwareFamily, reference, [...tags].sort()]));
    }
    expected.maltrail.sightings = keys.size;
    await writeZip(file("cwec_latest.xml.zip"), "cwec_v4.15.xml", gunzipSync(await readFile(snapshot("mitre-cwe", "cwec_v4.15.xml.gz"))));
    await writeFile(file("month.csv"), gunzipSync(await readFile(snapshot("tweetfeed", "tweetfeed_month.csv.gz"))));

    publisher = await startFeedServer({
      [pathOf("cve-json5", 1)]: file("cvelistV5-main.tar.gz"),
      [pathOf("cisa-kev")]: snapshot("cisa-kev", "known_exploited_vulnerabilities.json"),
      [pathOf("epss")]: snapshot("epss", "emba_epss_CVE_all_years_2026-08-16.csv.gz"),
      [pathOf("trickest-poc")]: file("trickest-main.tar.gz"),
      [pathOf("mitre-cwe")]: file("cwec_latest.xml.zip"),
      [pathOf("feodotracker")]: snapshot("abusech", "feodotracker_ipblocklist_2024-04-04.csv"),
      [MALWAREBAZAAR_MD5_PATH]: snapshot("abusech", "malwarebazaar_recent_md5_2023-11-23.txt"),
      [pathOf("tweetfeed")]: file("month.csv"),
      [pathOf("signature-base", 0)]: snapshot("signature-base-iocs", "c2-iocs.txt"),
      [pathOf("signature-base", 1)]: snapshot("signature-base-iocs", "hash-iocs.txt"),
      [pathOf("maltrail")]: file("maltrail-master.tar.gz"),
      [pathOf("misp-warninglists")]: file("misp-warninglists-main.tar.gz"),
    });
    full = await createTestDatabase();
    for (const name of SYNCED) first.set(name, await syncFull(name));
  }, 600_000);

  afterAll(async () => {
    await publisher?.close();
    await full?.dispose();
    if (tmp) await rm(tmp, { recursive: true, force: true });
  });

  beforeEach(() => {
    publisher.requests.length = 0;
  });

  it("imports every source from its publisher's path, in sync order", async () => {
    for (const name of SYNCED) expect(first.get(name), name).toMatchObject({ status: "ok", error: null });
    const added = (name: string) => first.get(name)?.counts.added;
    const rejected = (name: string) => first.get(name)?.counts.rejected;
    expect(expected.cveRecords).toBe(903);
    expect(added("cve-json5")).toBe(903);
    expect(added("cisa-kev")).toBe(1_404);
    expect(added("epss")).toBe(360_142);
    expect(added("trickest-poc")).toBe(24_444);
    expect(added("mitre-cwe")).toBe(964 + 409 + 54);
    expect(added("feodotracker")).toBe(28);
    expect(added("malwarebazaar")).toBe(507);
    expect(added("misp-warninglists")).toBe(41);
    // month.csv: 12,092 rows (PROVENANCE.md).
    const tweetfeed = first.get("tweetfeed")!.counts;
    expect((first.get("tweetfeed")!.records ?? 0) + tweetfeed.rejected).toBe(12_092);
    // Distinct signature-base values: 986 MD5, 893 SHA-1, 1,174 SHA-256, 1,655 domains, 118 IPv4 (ioc-sources.test.ts).
    // One sighting per campaign that lists a value; the values themselves are the distinct ones.
    const signatureBase = await full.db
      .selectFrom("indicator_sightings")
      .select([(eb) => eb.fn.countAll().as("sightings"), (eb) => eb.fn.count("indicator_id").distinct().as("values")])
      .where("source", "=", "signature-base")
      .executeTakeFirstOrThrow();
    expect(first.get("signature-base")?.recordCount).toBe(Number(signatureBase.sightings));
    expect(Number(signatureBase.values)).toBe(986 + 893 + 1_174 + 1_655 + 118);
    const maltrail = first.get("maltrail")!.counts;
    expect((first.get("maltrail")!.records ?? 0) + maltrail.rejected).toBe(expected.maltrail.records + expected.maltrail.rejected);
    expect(maltrail.rejected).toBe(expected.maltrail.rejected);
    expect(maltrail.added).toBe(expected.maltrail.sightings);
    for (const name of ["cve-json5", "cisa-kev", "epss", "trickest-poc", "mitre-cwe", "feodotracker", "malwarebazaar", "signature-base", "misp-warninglists"]) {
      expect(rejected(name), name).toBe(0);
    }

    // The cross-source step ran against the earlier sources' data: every CVE
    // record in KEV carries its KEV flag, and every one EPSS scores its score.
    const count = async (query: { executeTakeFirstOrThrow(): Promise<{ n: unknown }> }) => Number((await query.executeTakeFirstOrThrow()).n);
    const inKev = await count(
      full.db
        .selectFrom("cves")
        .innerJoin("kev_entries", "kev_entries.cve_id", "cves.id")
        .select((eb) => eb.fn.countAll().as("n")),
    );
    const flagged = await count(
      full.db
        .selectFrom("cves")
        .select((eb) => eb.fn.countAll().as("n"))
        .where("kev", "=", 1),
    );
    expect(inKev).toBeGreaterThan(0);
    expect(flagged).toBe(inKev);
    const scored = await count(
      full.db
        .selectFrom("cves")
        .select((eb) => eb.fn.countAll().as("n"))
        .where("epss", "is not", null),
    );
    const withScore = await count(
      full.db
        .selectFrom("cves")
        .select((eb) => eb.fn.countAll().as("n"))
        .where("id", "in", (eb) => eb.selectFrom("epss_scores").select("cve_id")),
    );
    expect(withScore).toBeGreaterThan(0);
    expect(scored).toBe(withScore);

    const files = await full.db.selectFrom("source_files").selectAll().execute();
    expect(files).toHaveLength(12);
    expect(files.every((f) => f.etag?.startsWith('"') && f.last_modified !== null)).toBe(true);
  });

  it("records when each publisher last updated what it served, where its files say", async () => {
    const rows = await full.db.selectFrom("sources").select(["name", "published_at"]).where("published_at", "is not", null).orderBy("name").execute();
    expect(Object.fromEntries(rows.map((row) => [row.name, row.published_at]))).toEqual({
      // The "# Last updated:" header lines.
      feodotracker: "2024-04-04T07:03:03.000Z",
      malwarebazaar: "2023-11-23T04:18:36.000Z",
      // The files' time in GitHub's archives. cvelistV5's records carry their own dates.
      maltrail: COMMIT_TIME.toISOString(),
      "misp-warninglists": COMMIT_TIME.toISOString(),
      "trickest-poc": COMMIT_TIME.toISOString(),
      // <Weakness_Catalog … Date="2024-07-16">, inside MITRE's ZIP.
      "mitre-cwe": "2024-07-16",
    });
  });

  it("asks every publisher again conditionally: each answers 304 and nothing changes", async () => {
    const before = await tableCounts();
    for (const name of SYNCED) {
      const again = await syncFull(name);
      expect(again.status, name).toBe("not-modified");
    }
    expect(publisher.requests).toHaveLength(12);
    for (const request of publisher.requests) {
      expect(request.status, request.path).toBe(304);
      expect(request.ifNoneMatch, request.path).toMatch(/^"/);
      expect(request.ifModifiedSince, request.path).toBeTruthy();
    }
    expect(await tableCounts()).toEqual(before);
    const rows = await full.db.selectFrom("sources").selectAll().execute();
    for (const row of rows) {
      // A 304 keeps the last import's counts: it says nothing about the records.
      expect(row.status, row.name).toBe("not-modified");
      expect(row.added, row.name).toBe(first.get(row.name)?.counts.added);
    }
  });

  it("sends If-Modified-Since to a publisher without ETags, and a 304 changes nothing", async () => {
    const path = pathOf("feodotracker");
    publisher.setBehaviour(path, "no-etag");
    try {
      await full.db.deleteFrom("source_files").where("source", "=", "feodotracker").execute();
      const refetched = await syncFull("feodotracker");
      expect(refetched.counts).toEqual({ added: 0, updated: 0, unchanged: 28, rejected: 0, removed: 0 });
      const stored = await full.db.selectFrom("source_files").selectAll().where("source", "=", "feodotracker").executeTakeFirstOrThrow();
      expect(stored.etag).toBeNull();
      expect(stored.last_modified).toBeTruthy();

      const before = await tableCounts();
      publisher.requests.length = 0;
      const again = await syncFull("feodotracker");
      expect(again.status).toBe("not-modified");
      expect(publisher.requests).toEqual([{ path, status: 304, ifNoneMatch: undefined, ifModifiedSince: stored.last_modified }]);
      expect(await tableCounts()).toEqual(before);
    } finally {
      publisher.setBehaviour(path, "normal");
    }
  });

  it("fails on a truncated gzip and keeps every score and CVE figure the database already held", async () => {
    const path = pathOf("epss");
    const before = { digest: await epssDigest(), counts: await tableCounts() };
    const files = await full.db.selectFrom("source_files").selectAll().where("source", "=", "epss").execute();
    const row = await full.db.selectFrom("sources").selectAll().where("name", "=", "epss").executeTakeFirstOrThrow();
    expect(before.counts.epss_scores).toBe(360_142);
    publisher.setBehaviour(path, "truncated-content");
    try {
      const outcome = await syncFull("epss");
      expect(outcome.status).toBe("failed");
      expect(outcome.error).toMatch(/unexpected end of file/);
      expect(publisher.requests.map((r) => r.status)).toEqual([200]);
    } finally {
      publisher.setBehaviour(path, "normal");
    }
    expect(await epssDigest()).toEqual(before.digest);
    expect(await tableCounts()).toEqual(before.counts);
    // The validators of the last good download stay, so the next run is still conditional.
    expect(await full.db.selectFrom("source_files").selectAll().where("source", "=", "epss").execute()).toEqual(files);
    const after = await full.db.selectFrom("sources").selectAll().where("name", "=", "epss").executeTakeFirstOrThrow();
    expect(after).toMatchObject({
      status: "failed",
      added: row.added,
      record_count: row.record_count,
      last_success_at: row.last_success_at,
      newest_record_at: row.newest_record_at,
    });
    expect(after.last_error).toMatch(/unexpected end of file/);
  });
});
