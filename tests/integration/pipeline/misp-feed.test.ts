import { execFileSync } from "node:child_process";
import { createReadStream } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ParseResult } from "../../../server/feeds/toolkit/result";
import type { IocSighting } from "../../../server/feeds/ioc/sighting";
import { parseMispEvent, parseMispFeedTar, parseMispManifest } from "../../../server/feeds/ioc/misp";
import { loadPipelineConfig } from "../../../server/pipeline/config";
import { syncSource } from "../../../server/pipeline/sync";
import { createTestDatabase, recordingLogger, snapshot, startFeedServer, type FeedServer, type TestDatabase } from "../../helpers/feed-server";

/**
 * TweetFeed's live MISP feed (`misp/manifest.json` and one `<uuid>.json` per
 * event), served from the real snapshot tar extracted into a temporary folder,
 * synced through the pipeline's download code: by URL, incrementally, in
 * bounded runs, and from a directory.
 */
const FEED_PATH = "/0xDanielLopez/TweetFeed/master/misp/";
const SUBFEED_PATH = "/subfeed/misp/";
const NOW = new Date("2026-08-23T00:00:00Z");
const TAR = snapshot("tweetfeed", "tweetfeed_misp_feed.tar.gz");
/** A UUID the sub-feed's manifest lists without serving its event. */
const MISSING_UUID = "00000000-0000-4000-8000-000000000000";

let tmp: string;
let feedDir: string;
let subfeedDir: string;
let server: FeedServer;
const { logger, entries } = recordingLogger();

/**
 * What the parser itself makes of the events: records, rejections and
 * distinct sightings (one per value and port, reporter, family, reference
 * and tag set: a repeated attribute is one sighting).
 */
interface Expected {
  records: number;
  rejected: number;
  sightings: number;
}

function tally(expected: Expected, keys: Set<string>, result: ParseResult<IocSighting>) {
  if (!result.ok) {
    expected.rejected += 1;
    return;
  }
  expected.records += 1;
  const { indicator, port, reporter, malwareFamily, reference, tags } = result.record;
  keys.add(JSON.stringify([indicator.type, indicator.value, port ?? null, reporter, malwareFamily, reference, [...tags].sort()]));
}

async function expectedFromTar(): Promise<Expected> {
  const expected = { records: 0, rejected: 0, sightings: 0 };
  const keys = new Set<string>();
  for await (const result of parseMispFeedTar(createReadStream(TAR), { source: "tweetfeed" })) tally(expected, keys, result);
  return { ...expected, sightings: keys.size };
}

async function expectedFromEvents(dir: string, uuids: readonly string[]): Promise<Expected> {
  const expected = { records: 0, rejected: 0, sightings: 0 };
  const keys = new Set<string>();
  for (const uuid of uuids) {
    for await (const result of parseMispEvent([await readFile(join(dir, `${uuid}.json`))], { source: "tweetfeed" })) tally(expected, keys, result);
  }
  return { ...expected, sightings: keys.size };
}

async function routesFor(prefix: string, dir: string): Promise<Record<string, string>> {
  return Object.fromEntries((await readdir(dir)).map((name) => [`${prefix}${name}`, join(dir, name)]));
}

/** Records the run read, accepted or not. */
function read(outcome: { records?: number; counts: { rejected: number } }): number {
  return (outcome.records ?? 0) + outcome.counts.rejected;
}

async function sightings(db: TestDatabase): Promise<number> {
  const row = await db.db
    .selectFrom("indicator_sightings")
    .select((eb) => eb.fn.countAll().as("n"))
    .where("source", "=", "tweetfeed")
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

async function cursorOf(db: TestDatabase): Promise<Record<string, { timestamp: number; more: boolean }>> {
  const row = await db.db.selectFrom("sources").select("cursor").where("name", "=", "tweetfeed").executeTakeFirstOrThrow();
  return JSON.parse(row.cursor ?? "{}").mispFeeds;
}

function sync(db: TestDatabase, location: string, extra: Record<string, string> = {}) {
  const config = loadPipelineConfig({ SOURCE_TWEETFEED_URL: location, ...extra });
  return syncSource("tweetfeed", { store: db.store, config, logger, now: () => NOW });
}

let manifest: ReturnType<typeof parseMispManifest>;
/**
 * The sub-feed: the 40 events that changed last (runs of one timestamp among
 * them: 3, 17 and 7 events), one listed but not served, and one key that is
 * not a UUID.
 */
let subfeedUuids: string[];

beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), "threat-radar-misp-"));
  execFileSync("tar", ["-xzf", TAR, "-C", tmp]);
  feedDir = join(tmp, "misp");
  manifest = parseMispManifest(await readFile(join(feedDir, "manifest.json"), "utf8"));

  subfeedDir = join(tmp, "subfeed");
  await mkdir(subfeedDir);
  const full = JSON.parse(await readFile(join(feedDir, "manifest.json"), "utf8")) as Record<string, unknown>;
  const newest = manifest.events.slice(-40);
  subfeedUuids = newest.map((event) => event.uuid);
  const sub: Record<string, unknown> = Object.fromEntries(subfeedUuids.map((uuid) => [uuid, full[uuid]]));
  sub[MISSING_UUID] = { info: "listed, never published", date: "2026-07-01", timestamp: String(newest[0]!.timestamp - 1) };
  sub["../manifest"] = { info: "not a UUID", timestamp: "1" };
  await writeFile(join(subfeedDir, "manifest.json"), JSON.stringify(sub));
  for (const uuid of subfeedUuids) await writeFile(join(subfeedDir, `${uuid}.json`), await readFile(join(feedDir, `${uuid}.json`)));

  server = await startFeedServer({ ...(await routesFor(FEED_PATH, feedDir)), ...(await routesFor(SUBFEED_PATH, subfeedDir)) });
});

afterAll(async () => {
  await server?.close();
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

describe("TweetFeed's MISP feed by URL (365 real events)", () => {
  let db: TestDatabase;
  let expected: Expected;

  beforeAll(async () => {
    db = await createTestDatabase();
    expected = await expectedFromTar();
  });

  afterAll(async () => {
    await db?.dispose();
  });

  it("fetches manifest.json, then every event it lists, and stores what the parser reads from the tar", async () => {
    expect(manifest.events).toHaveLength(365);
    expect(manifest.rejected).toEqual([]);
    server.requests.length = 0;
    const outcome = await sync(db, server.url(FEED_PATH));
    expect(outcome.status).toBe("ok");
    // PROVENANCE.md: 110,682 attributes, all of indicator types.
    expect(expected.records + expected.rejected).toBe(110_682);
    expect(read(outcome)).toBe(110_682);
    expect(outcome.counts.rejected).toBe(expected.rejected);
    expect(outcome.counts.added).toBe(expected.sightings);
    expect(outcome.recordCount).toBe(expected.sightings);
    expect(await sightings(db)).toBe(expected.sightings);

    expect(server.requests[0]).toMatchObject({ path: `${FEED_PATH}manifest.json`, status: 200 });
    expect(server.requests).toHaveLength(366);
    expect(server.requests.every((r) => r.status === 200)).toBe(true);
    // Oldest change first, as the manifest's timestamps order them.
    expect(server.requests.slice(1).map((r) => r.path)).toEqual(manifest.events.map((e) => `${FEED_PATH}${e.uuid}.json`));
    const files = await db.db.selectFrom("source_files").select(["location", "etag"]).where("source", "=", "tweetfeed").execute();
    expect(files).toHaveLength(366);
    expect(files.every((f) => f.etag?.startsWith('"'))).toBe(true);
    expect(await cursorOf(db)).toEqual({ [server.url(FEED_PATH)]: { timestamp: manifest.events.at(-1)!.timestamp, more: false } });
  });

  it("asks again conditionally: the manifest answers 304 and nothing else is requested or changed", async () => {
    server.requests.length = 0;
    const again = await sync(db, server.url(FEED_PATH));
    expect(again.status).toBe("not-modified");
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]).toMatchObject({ path: `${FEED_PATH}manifest.json`, status: 304 });
    expect(server.requests[0]?.ifNoneMatch).toMatch(/^"/);
    expect(await sightings(db)).toBe(expected.sightings);
  });

  it("fetches only the event whose timestamp changed", async () => {
    const changed = manifest.events[100]!;
    const eventPath = join(feedDir, `${changed.uuid}.json`);
    const manifestPath = join(feedDir, "manifest.json");
    const [eventText, manifestText] = [await readFile(eventPath, "utf8"), await readFile(manifestPath, "utf8")];
    try {
      const event = JSON.parse(eventText);
      const timestamp = String(manifest.events.at(-1)!.timestamp + 60);
      event.Event.timestamp = timestamp;
      // A documentation address (RFC 5737), added the way the publisher would add a new attribute.
      event.Event.Attribute.push({
        uuid: "7d6f3c9e-0d4a-4c55-9c1e-3a2b1c0d9e8f",
        type: "ip-dst",
        category: "Network activity",
        to_ids: true,
        value: "203.0.113.77",
        timestamp,
      });
      const fullManifest = JSON.parse(manifestText);
      fullManifest[changed.uuid].timestamp = timestamp;
      await writeFile(eventPath, JSON.stringify(event));
      await writeFile(manifestPath, JSON.stringify(fullManifest));

      server.requests.length = 0;
      const outcome = await sync(db, server.url(FEED_PATH));
      expect(server.requests.map((r) => [r.path, r.status])).toEqual([
        [`${FEED_PATH}manifest.json`, 200],
        [`${FEED_PATH}${changed.uuid}.json`, 200],
      ]);
      const parsed = JSON.parse(eventText).Event.Attribute.length as number;
      expect(outcome).toMatchObject({ status: "ok", counts: { added: 1 } });
      expect(read(outcome)).toBe(parsed + 1);
      expect(await sightings(db)).toBe(expected.sightings + 1);
      expect((await cursorOf(db))[server.url(FEED_PATH)]).toEqual({ timestamp: Number(timestamp), more: false });
    } finally {
      await writeFile(eventPath, eventText);
      await writeFile(manifestPath, manifestText);
    }
  });
});

describe("a MISP feed in bounded runs", () => {
  it("loads the feed over several runs, oldest first, to the same result as one run", async () => {
    const expected = await expectedFromEvents(subfeedDir, subfeedUuids);
    const whole = await createTestDatabase();
    const bounded = await createTestDatabase();
    try {
      const one = await sync(whole, server.url(SUBFEED_PATH));
      expect(one.status).toBe("ok");
      // 40 events, the one not served and the key that is not a UUID.
      expect(one.counts.rejected).toBe(expected.rejected + 2);
      expect(read(one)).toBe(expected.records + expected.rejected + 2);
      expect(await sightings(whole)).toBe(expected.sightings);
      const missing = entries.filter((e) => e.msg === "rejected record" && String(e.location).startsWith(MISSING_UUID));
      expect(missing.at(-1)).toMatchObject({ location: `${MISSING_UUID}.json`, reason: "listed in manifest.json but not in the feed" });
      expect(server.requests.some((r) => r.path.includes(".."))).toBe(false);

      const runs: number[] = [];
      let total = 0;
      for (let run = 0; run < 5; run++) {
        server.requests.length = 0;
        const outcome = await sync(bounded, server.url(SUBFEED_PATH), { SYNC_MISP_EVENTS_PER_RUN: "15" });
        if (outcome.status === "not-modified") break;
        expect(outcome.status).toBe("ok");
        total += read(outcome);
        runs.push(server.requests.length - 1);
        const state = (await cursorOf(bounded))[server.url(SUBFEED_PATH)];
        expect(state?.more).toBe(runs.reduce((a, b) => a + b, 0) < 41);
      }
      // 41 listed events (40 served, one 404) in runs of 15, then a 304. The
      // second run reaches into 17 events of one timestamp and takes them all.
      expect(runs).toEqual([15, 18, 8]);
      expect(server.requests.map((r) => r.status)).toEqual([304]);
      // The same records, except that each run that read the manifest rejected its non-UUID key again.
      expect(total).toBe(read(one) + 2);
      expect(await sightings(bounded)).toBe(expected.sightings);
    } finally {
      await whole.dispose();
      await bounded.dispose();
    }
  });
});

describe("a MISP feed in a directory", () => {
  it("reads manifest.json and the events from the folder, the same as by URL", async () => {
    const db = await createTestDatabase();
    try {
      const expected = await expectedFromEvents(subfeedDir, subfeedUuids);
      const outcome = await sync(db, subfeedDir);
      expect(outcome.status).toBe("ok");
      expect(read(outcome)).toBe(expected.records + expected.rejected + 2);
      expect(await sightings(db)).toBe(expected.sightings);
      // The folder is read again, but no event changed since the cursor.
      const again = await sync(db, subfeedDir);
      expect(again).toMatchObject({ status: "ok", counts: { added: 0, updated: 0, unchanged: 0, rejected: 1 } });
    } finally {
      await db.dispose();
    }
  });
});
