import { createReadStream, readFileSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { setTimeout as delay } from "node:timers/promises";
import { createGunzip } from "node:zlib";
import express from "express";
import { sql } from "kysely";
import request from "supertest";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createSourcesRouter } from "../../../server/api/sources";
import { dialectOf } from "../../../server/db/dialect";
import { SqliteDataVersion } from "../../../server/db/sqlite/data-version";
import type { SourceStatusRows } from "../../../server/db/web-database";
import { loadPipelineConfig, type PipelineConfig } from "../../../server/pipeline/config";
import { priorityOf } from "../../../server/pipeline/derived";
import { acquireImportLock, lockHolderName } from "../../../server/pipeline/engine/lock";
import { recordCrashedImport } from "../../../server/pipeline/run";
import { childProcessRunner } from "../../../server/pipeline/runner";
import { startScheduler } from "../../../server/pipeline/scheduler";
import { SOURCES } from "../../../server/pipeline/source-catalogue";
import { syncSource } from "../../../server/pipeline/sync";
import { createTestDatabase, recordingLogger, snapshot, type TestDatabase } from "../../helpers/feed-server";

const NOW = new Date("2024-06-01T00:00:00Z");
const KEV_JSON = snapshot("cisa-kev", "known_exploited_vulnerabilities.json");
const NVD_FIXTURE = resolve(import.meta.dirname, "../../fixtures/nvd");

let db: TestDatabase;
let recorder: ReturnType<typeof recordingLogger>;

beforeEach(async () => {
  db = await createTestDatabase();
  recorder = recordingLogger();
});

afterEach(async () => {
  await db.dispose();
});

function sync(name: string, env: Record<string, string>) {
  return syncSource(name, { store: db.store, config: loadPipelineConfig(env), logger: recorder.logger, now: () => NOW });
}

async function count(table: "kev_entries" | "cves" | "indicator_sightings" | "indicators"): Promise<number> {
  const row = await db.db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll().as("n"))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** A copy of the real KEV catalogue with `edit` applied, written next to the test database. */
async function kevVariant(name: string, edit: (catalog: { vulnerabilities: Array<Record<string, unknown>> }) => void) {
  const catalog = JSON.parse(readFileSync(KEV_JSON, "utf8"));
  edit(catalog);
  const path = join(db.dir, name);
  await writeFile(path, JSON.stringify(catalog));
  return path;
}

async function realCveRecords(ids: string[]): Promise<Map<string, Record<string, any>>> {
  const found = new Map<string, Record<string, any>>();
  for (const year of new Set(ids.map((id) => id.split("-")[1]))) {
    const input = createReadStream(snapshot("cve-json5-vulnrichment", `vulnrichment_cve5_${year}.jsonl.gz`)).pipe(createGunzip());
    for await (const line of createInterface({ input, crlfDelay: Infinity })) {
      const id = /"cveId":"(CVE-[\d-]+)"/.exec(line)?.[1];
      if (id && ids.includes(id)) found.set(id, JSON.parse(line));
    }
  }
  return found;
}

/**
 * Counts the updates of each `cves` row from now on (a row trigger on either database); the returned
 * function gives the counts since its last call.
 */
async function countCveUpdates(): Promise<() => Promise<Map<string, number>>> {
  await sql`create table cve_writes (id text not null)`.execute(db.db);
  if (dialectOf(db.db).name === "postgres") {
    await sql`create function count_cve_write() returns trigger language plpgsql as $$ begin insert into cve_writes values (new.id); return null; end $$`.execute(
      db.db,
    );
    await sql`create trigger count_cve_writes after update on cves for each row execute function count_cve_write()`.execute(db.db);
  } else {
    await sql`create trigger count_cve_writes after update on cves begin insert into cve_writes values (new.id); end`.execute(db.db);
  }
  return async () => {
    const { rows } = await sql<{ id: string; n: number | string }>`select id, count(*) as n from cve_writes group by id order by id`.execute(db.db);
    await sql`delete from cve_writes`.execute(db.db);
    return new Map(rows.map((row) => [row.id, Number(row.n)]));
  };
}

/** Writes records into a cvelistV5 layout: cves/YYYY/Nxxx/CVE-….json. */
async function writeTree(root: string, records: Iterable<Record<string, any>>) {
  for (const record of records) {
    const id: string = record.cveMetadata.cveId;
    const [, year = "", number = "0"] = id.split("-");
    const path = join(root, "cves", year, `${Math.floor(Number(number) / 1000)}xxx`, `${id}.json`);
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, JSON.stringify(record, null, 2));
  }
}

describe("malformed records and failed feeds", () => {
  it("counts a malformed record as rejected, logs where it is, and keeps the rest", async () => {
    const path = await kevVariant("kev-malformed.json", (catalog) => {
      catalog.vulnerabilities[5]!.dateAdded = "last tuesday";
      catalog.vulnerabilities[7]!.cveID = "not-a-cve";
    });
    const outcome = await sync("cisa-kev", { SOURCE_CISA_KEV_URL: path });
    expect(outcome).toMatchObject({ status: "ok", counts: { added: 1_402, rejected: 2 } });
    expect(await count("kev_entries")).toBe(1_402);
    const rejected = recorder.entries.filter((e) => e.msg === "rejected record");
    expect(rejected.map((e) => e.location)).toEqual(["kev-malformed.json#vulnerabilities[5]", "kev-malformed.json#vulnerabilities[7]"]);
    expect(rejected[0]?.reason).toMatch(/dateAdded/);
  });

  it("rolls back an unparseable feed and records the error without losing the last counts", async () => {
    await sync("cisa-kev", { SOURCE_CISA_KEV_URL: KEV_JSON });
    const broken = join(db.dir, "kev-cut.json");
    await writeFile(broken, readFileSync(KEV_JSON, "utf8").slice(0, 500_000));
    const outcome = await sync("cisa-kev", { SOURCE_CISA_KEV_URL: broken });
    expect(outcome.status).toBe("failed");
    expect(outcome.error).toMatch(/not a JSON document/);
    expect(await count("kev_entries")).toBe(1_404);
    const row = await db.db.selectFrom("sources").selectAll().where("name", "=", "cisa-kev").executeTakeFirstOrThrow();
    expect(row).toMatchObject({ status: "failed", added: 1_404, record_count: 1_404 });
    expect(row.last_error).toMatch(/not a JSON document/);
  });

  it("deletes a withdrawn KEV entry only when the catalogue was read cleanly", async () => {
    await sync("cisa-kev", { SOURCE_CISA_KEV_URL: KEV_JSON });
    const withdrawn = await kevVariant("kev-withdrawn.json", (catalog) => {
      catalog.vulnerabilities.splice(3, 1);
      catalog.vulnerabilities[10]!.dueDate = "someday";
    });
    const kept = await sync("cisa-kev", { SOURCE_CISA_KEV_URL: withdrawn });
    expect(kept.counts).toMatchObject({ rejected: 1, removed: 0 });
    expect(await count("kev_entries")).toBe(1_404);

    const clean = await kevVariant("kev-clean.json", (catalog) => catalog.vulnerabilities.splice(3, 1));
    const removed = await sync("cisa-kev", { SOURCE_CISA_KEV_URL: clean });
    expect(removed.counts).toMatchObject({ added: 0, updated: 0, unchanged: 1_403, rejected: 0, removed: 1 });
    expect(await count("kev_entries")).toBe(1_403);
  });
});

describe("cvelistV5 layout and NVD pages", () => {
  const IDS = ["CVE-2024-3400", "CVE-2024-21762", "CVE-2023-34362"];

  it("reads a cvelistV5 tree in full, then only what the delta log names", async () => {
    const records = await realCveRecords(IDS);
    const root = join(db.dir, "cvelistV5");
    await writeTree(root, records.values());
    const delta = (fetchTime: string, ids: string[]) => ({
      fetchTime,
      numberOfChanges: ids.length,
      new: [],
      updated: ids.map((cveId) => ({ cveId, githubLink: `https://raw.githubusercontent.com/CVEProject/cvelistV5/main/cves/x/${cveId}.json` })),
      error: [],
    });
    await writeFile(join(root, "cves", "deltaLog.json"), JSON.stringify([delta("2024-05-01T10:00:00.000Z", IDS)]));

    const full = await sync("cve-json5", { SOURCE_CVE_JSON5_URL: root });
    expect(full).toMatchObject({ status: "ok", counts: { added: 3, rejected: 0 } });
    const cursor = await db.db.selectFrom("sources").select("cursor").where("name", "=", "cve-json5").executeTakeFirstOrThrow();
    expect(cursor.cursor).toBe("2024-05-01T10:00:00.000Z");

    const changed = records.get("CVE-2024-3400")!;
    changed.containers.cna.title = "PAN-OS: retitled for the test";
    await writeTree(root, [changed]);
    await writeFile(
      join(root, "cves", "deltaLog.json"),
      JSON.stringify([delta("2024-05-01T11:00:00.000Z", ["CVE-2024-3400"]), delta("2024-05-01T10:00:00.000Z", IDS)]),
    );
    const incremental = await sync("cve-json5", { SOURCE_CVE_JSON5_URL: root });
    expect(incremental.counts).toEqual({ added: 0, updated: 1, unchanged: 0, rejected: 0, removed: 0 });
    const row = await db.db.selectFrom("cves").select("title").where("id", "=", "CVE-2024-3400").executeTakeFirstOrThrow();
    expect(row.title).toBe("PAN-OS: retitled for the test");

    // A delta log that no longer reaches back to the cursor forces a full read.
    await writeFile(join(root, "cves", "deltaLog.json"), JSON.stringify([delta("2024-05-03T00:00:00.000Z", [])]));
    const gap = await sync("cve-json5", { SOURCE_CVE_JSON5_URL: root });
    expect(gap.counts).toMatchObject({ added: 0, updated: 0, unchanged: 3 });
  });

  it("writes a CVE's evidence and priority with its first row, or one update after its record, and none when nothing moved", async () => {
    const writes = await countCveUpdates();
    // KEV is the first to name its CVEs: each row is inserted with its KEV columns and priority, never updated.
    await sync("cisa-kev", { SOURCE_CISA_KEV_URL: KEV_JSON });
    expect(await writes()).toEqual(new Map());
    expect(await db.db.selectFrom("cves").select(["kev", "priority_score"]).where("id", "=", IDS[0]!).executeTakeFirst()).toEqual({
      kev: 1,
      priority_score: expect.any(Number),
    });
    const records = await realCveRecords(IDS);
    const root = join(db.dir, "tree");
    await writeTree(root, records.values());

    // Each row exists (KEV named it): the record's upsert, then one update with its CVSS, exploits and priority.
    await sync("cve-json5", { SOURCE_CVE_JSON5_URL: root });
    expect(await writes()).toEqual(new Map(IDS.map((id) => [id, 2])));
    for (const id of IDS) {
      const row = await db.db.selectFrom("cves").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
      expect(row).toMatchObject({ has_record: 1, kev: 1 });
      expect(row.cvss_score).not.toBeNull();
      expect(row.priority_score).toBe(priorityOf(row, NOW));
    }

    // A new title moves no evidence and no priority: the upsert alone.
    const changed = records.get("CVE-2024-3400")!;
    changed.containers.cna.title = "PAN-OS: retitled for the test";
    await writeTree(root, [changed]);
    await sync("cve-json5", { SOURCE_CVE_JSON5_URL: root });
    expect(await writes()).toEqual(new Map([["CVE-2024-3400", 1]]));
  });

  it("adds NVD's metrics beside the CVE record's and creates rows only for CVEs it alone knows", async () => {
    const records = await realCveRecords(["CVE-2024-3400"]);
    const root = join(db.dir, "tree");
    await writeTree(root, records.values());
    await sync("cve-json5", { SOURCE_CVE_JSON5_URL: root });
    const outcome = await sync("nvd", { SOURCE_NVD_URL: NVD_FIXTURE });
    expect(outcome).toMatchObject({ status: "ok", counts: { added: 2, rejected: 0 } });

    const pan = await db.db.selectFrom("cves").selectAll().where("id", "=", "CVE-2024-3400").executeTakeFirstOrThrow();
    expect(pan).toMatchObject({ record_source: "cve-json5", cvss_score: 10, cvss_source: "cna" });
    expect(pan.title).toBe(records.get("CVE-2024-3400")!.containers.cna.title);
    const metrics = await db.db
      .selectFrom("cve_cvss")
      .select(["origin", "source", "score", "nvd_type"])
      .where("cve_id", "=", "CVE-2024-3400")
      .orderBy("origin")
      .orderBy("score", "desc")
      .execute();
    expect(metrics).toEqual([
      { origin: "cve-json5", source: "cna", score: 10, nvd_type: null },
      { origin: "nvd", source: "cna", score: 10, nvd_type: "Secondary" },
      { origin: "nvd", source: "nvd", score: 9.8, nvd_type: "Primary" },
    ]);
    expect(pan.exploit_count).toBe(1);

    const log4j = await db.db.selectFrom("cves").selectAll().where("id", "=", "CVE-2021-44228").executeTakeFirstOrThrow();
    expect(log4j).toMatchObject({
      record_source: "nvd",
      date_published: "2021-12-10T10:15:09.143Z",
      cvss_score: 9.3,
      cvss_severity: "HIGH",
      cvss_version: "2.0",
    });
  });
});

describe("IOC feeds", () => {
  it("stores Feodo Tracker and MalwareBazaar sightings and skips the unchanged file next time", async () => {
    const env = {
      SOURCE_FEODOTRACKER_URL: snapshot("abusech", "feodotracker_ipblocklist_2024-04-04.csv"),
      SOURCE_MALWAREBAZAAR_URL: snapshot("abusech", "malwarebazaar_recent_md5_2023-11-23.txt"),
    };
    const feodo = await sync("feodotracker", env);
    const bazaar = await sync("malwarebazaar", env);
    expect(feodo).toMatchObject({ status: "ok", counts: { added: 28, rejected: 0 } });
    // PROVENANCE.md says 506; the file holds 507 distinct MD5 lines after its 10 comment lines.
    expect(bazaar).toMatchObject({ status: "ok", counts: { added: 507, rejected: 0 } });
    expect(await count("indicator_sightings")).toBe(28 + 507);

    const ip = await db.db
      .selectFrom("indicators")
      .innerJoin("indicator_sightings as s", "s.indicator_id", "indicators.id")
      .select(["indicators.type", "indicators.value", "indicators.malware_family", "s.port", "s.source"])
      .where("indicators.type", "=", "ipv4")
      .orderBy("indicators.value")
      .executeTakeFirstOrThrow();
    expect(ip.port).toBeGreaterThan(0);
    expect(ip.source).toBe("feodotracker");

    // The publisher's "Last updated" line: all that dates the hash list, whose lines carry no date.
    const stamps = await db.db.selectFrom("sources").select(["name", "published_at", "newest_record_at"]).orderBy("name").execute();
    expect(stamps).toEqual([
      { name: "feodotracker", published_at: "2024-04-04T07:03:03.000Z", newest_record_at: "2024-04-04T07:03:03.000Z" },
      { name: "malwarebazaar", published_at: "2023-11-23T04:18:36.000Z", newest_record_at: null },
    ]);
    const freshness = async (now: string) => {
      const app = express().use("/api/v1", createSourcesRouter({ db: db.db, now: () => new Date(now), config: loadPipelineConfig({}) }));
      const { body } = await request(app).get("/api/v1/sources").expect(200);
      return body.sources.find((source: { name: string }) => source.name === "malwarebazaar").freshness;
    };
    // Imported on 2024-06-01, a list of 2023-11-23 is stale: its last successful import alone said "fresh".
    expect(await freshness(NOW.toISOString())).toEqual({
      newestRecordAt: null,
      publishedAt: "2023-11-23T04:18:36.000Z",
      basis: "published",
      staleAfterHours: 48,
      stale: true,
    });
    expect(await freshness("2023-11-24T04:00:00Z")).toMatchObject({ basis: "published", stale: false });

    const again = await sync("feodotracker", env);
    expect(again.status).toBe("not-modified");
    expect(again.counts).toEqual({ added: 0, updated: 0, unchanged: 0, rejected: 0, removed: 0 });
    expect(await count("indicator_sightings")).toBe(28 + 507);
  });
});

describe("sources API and scheduler", () => {
  function quietConfig(enabled: string[] = []): PipelineConfig {
    const config = loadPipelineConfig({ SOURCE_CISA_KEV_URL: KEV_JSON, SYNC_INTERVAL_CISA_KEV_MINUTES: "60" });
    for (const source of SOURCES) config.sources[source.name].enabled = enabled.includes(source.name);
    return config;
  }

  it("GET /api/v1/sources lists every source with status, counts and freshness", async () => {
    await sync("cisa-kev", { SOURCE_CISA_KEV_URL: KEV_JSON });
    const app = express().use("/api/v1", createSourcesRouter({ db: db.db, now: () => new Date("2025-08-30T00:00:00Z"), config: quietConfig() }));
    const response = await request(app).get("/api/v1/sources").expect(200);
    expect(response.body.sources.map((s: { name: string }) => s.name)).toEqual(SOURCES.map((s) => s.name));
    const kev = response.body.sources.find((s: { name: string }) => s.name === "cisa-kev");
    expect(kev).toMatchObject({
      status: "ok",
      lastError: null,
      counts: { added: 1_404, updated: 0, unchanged: 0, rejected: 0, removed: 0 },
      records: 1_404,
      intervalMinutes: 60,
      freshness: { newestRecordAt: "2025-08-25", basis: "newest-record", stale: false },
    });
    const epss = response.body.sources.find((s: { name: string }) => s.name === "epss");
    expect(epss).toMatchObject({ status: "never-run", freshness: { basis: "never-imported", stale: true } });
  });

  it("names the running import and follows every commit, read by queries or (SQLite) with the data version", async () => {
    const version = db.env.DATABASE_PATH ? new SqliteDataVersion(db.env.DATABASE_PATH) : null;
    // Queried (both dialects), and on SQLite from the data version's rows too: the two must agree.
    const readers: Array<(() => SourceStatusRows) | undefined> = version ? [undefined, () => version.statusRows()] : [undefined];
    async function answers() {
      const bodies = [];
      for (const statusRows of readers) {
        const app = express().use("/api/v1", createSourcesRouter({ db: db.db, now: () => NOW, statusRows }));
        const { body } = await request(app).get("/api/v1/sources").expect(200);
        bodies.push({ running: body.running, epss: body.sources.find((s: { name: string }) => s.name === "epss").status });
      }
      return bodies;
    }
    try {
      const lock = await acquireImportLock(db.db);
      await lock.setSource("epss");
      const holder = lockHolderName();
      for (const answer of await answers()) expect(answer).toMatchObject({ running: { holder, source: "epss" }, epss: "never-run" });
      await db.db.insertInto("sources").values({ name: "epss", status: "failed", last_error: "fetch failed" }).execute();
      // The lock's new source moves no served data (nor the version): the answer follows it all the same.
      await lock.setSource("cisa-kev");
      for (const answer of await answers()) expect(answer).toMatchObject({ running: { holder, source: "cisa-kev" }, epss: "failed" });
      await lock.release();
      expect(await answers()).toEqual(readers.map(() => ({ running: null, epss: "failed" })));
    } finally {
      version?.close();
    }
  });

  it("runs a never-run source on start in an import process of its own, and answers runNow", async () => {
    const env = { ...process.env, SOURCE_CISA_KEV_URL: KEV_JSON, SYNC_INTERVAL_CISA_KEV_MINUTES: "60", LOG_LEVEL: "silent" };
    const scheduler = startScheduler({
      db: db.db,
      config: quietConfig(["cisa-kev"]),
      logger: recorder.logger,
      runner: childProcessRunner({ databasePath: null, env: { ...env, ...db.env }, logger: recorder.logger }),
      recordCrash: (source, message, at) => recordCrashedImport(db.db, source, message, at),
    });
    try {
      for (let i = 0; i < 2_400 && (await count("kev_entries")) === 0; i++) await delay(25);
      expect(await count("kev_entries")).toBe(1_404);
      // The same file again: the import reads nothing.
      const outcome = await scheduler.runNow("cisa-kev");
      expect(outcome).toMatchObject({ source: "cisa-kev", status: "not-modified" });
    } finally {
      await scheduler.stop();
    }
    await expect(scheduler.runNow("cisa-kev")).rejects.toThrow(/stopped/);
  });
});
