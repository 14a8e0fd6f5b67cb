import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { loadPipelineConfig } from "../../../server/pipeline/config";
import { syncSource } from "../../../server/pipeline/sync";
import {
  createTestDatabase,
  recordingLogger,
  snapshot,
  startFeedServer,
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
  return syncSource(name, { db: db.db, config: configFor(server), logger, now: () => new Date("2025-09-01T00:00:00Z") });
}

async function kevRows(): Promise<number> {
  const row = await db.db.selectFrom("kev_entries").select((eb) => eb.fn.countAll().as("n")).executeTakeFirstOrThrow();
  return Number(row.n);
}

beforeAll(async () => {
  server = await startFeedServer({
    [KEV_PATH]: snapshot("cisa-kev", "known_exploited_vulnerabilities.json"),
    [EPSS_PATH]: snapshot("epss", "emba_epss_CVE_all_years_2026-08-16.csv.gz"),
  });
});

afterAll(async () => {
  await server?.close();
});

beforeEach(async () => {
  await db?.dispose();
  db = await createTestDatabase();
  server.requests.length = 0;
  server.setBehaviour(KEV_PATH, "normal");
  server.setBehaviour(EPSS_PATH, "normal");
});

describe("downloads over HTTP", () => {
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
    const row = await db.db.selectFrom("epss_scores").select((eb) => eb.fn.countAll().as("n")).executeTakeFirstOrThrow();
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
    expect(outcome).toMatchObject({ status: "ok", counts: { added: 360_142 } });
    const dates = await db.db.selectFrom("epss_scores").select("score_date").distinct().execute();
    // The download has no date in its name, so its Last-Modified day is the score date.
    expect(dates).toHaveLength(1);
    expect(dates[0]?.score_date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });
});
