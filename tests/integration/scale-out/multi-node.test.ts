import { createReadStream, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { setTimeout as delay } from "node:timers/promises";
import { createGunzip } from "node:zlib";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { envKey, SOURCES } from "../../../server/pipeline/source-catalogue";
import { snapshot, startFeedServer, type FeedServer } from "../../helpers/feed-server";
import { DIST_DIR } from "../../helpers/paths";
import { createPostgresDatabase, startPostgresCluster, type PostgresCluster, type TestPostgresDatabase } from "../../helpers/postgres-cluster";
import { freePort, startServerProcess, waitForHealthy, type ServerProcess } from "../../helpers/server-process";

/**
 * Two `web` nodes and import workers on one PostgreSQL database, as the
 * built server runs in production; the feed comes from a loopback feed
 * server. The steps build on each other, in order.
 */

const FULL_EPSS = snapshot("epss", "emba_epss_CVE_all_years_2026-08-16.csv.gz");
const EARLY_ROWS = 2_000;
const LOOKUP_MAX = 6;
/** Generous bound for waits on imports, which share two cores with other work. */
const WAIT_MS = 8 * 60_000;

const dir = mkdtempSync(join(tmpdir(), "threat-radar-scale-out-"));
let cluster: PostgresCluster;
let database: TestPostgresDatabase;
let feeds: FeedServer;
let admin: pg.Client;
const processes: ServerProcess[] = [];
let web: ServerProcess[] = [];

async function start(env: Record<string, string>, options: { group?: boolean } = {}): Promise<ServerProcess> {
  const server = startServerProcess(
    {
      PORT: String(await freePort()),
      DATABASE_URL: database.url,
      // Nothing reaches the network: a source not pointed at the feed server is missing from this (empty) mirror.
      SYNC_MIRROR_DIR: join(dir, "mirror"),
      RATE_LIMIT_LOOKUP_MAX: String(LOOKUP_MAX),
      ...env,
    },
    { built: true, group: options.group },
  );
  processes.push(server);
  await waitForHealthy(server.url);
  return server;
}

/** Only EPSS is scheduled: the other sources would take the lock too, each for a moment. */
const onlyEpss = Object.fromEntries(SOURCES.filter((source) => source.name !== "epss").map((source) => [`SOURCE_${envKey(source.name)}_ENABLED`, "false"]));

const worker = (feedPath: string, options: { group?: boolean } = {}) =>
  start({ SERVER_ROLE: "worker", SYNC_ENABLED: "true", SOURCE_EPSS_URL: feeds.url(feedPath), ...onlyEpss }, options);

async function epss(): Promise<{ last_success_at: string | null; record_count: number | null } | undefined> {
  const { rows } = await admin.query("select last_success_at, record_count::float8 as record_count from sources where name = 'epss'");
  return rows[0];
}

async function waitFor<T>(what: string, probe: () => Promise<T | null | undefined | false>): Promise<T> {
  const deadline = Date.now() + WAIT_MS;
  while (Date.now() < deadline) {
    const value = await probe();
    if (value) return value;
    await delay(200);
  }
  throw new Error(`gave up waiting for ${what}`);
}

async function sourcesOf(node: ServerProcess) {
  const body = (await (await fetch(`${node.url}/api/v1/sources`)).json()) as {
    running: { holder: string; source: string | null } | null;
    sources: Array<{ name: string; records: number | null }>;
  };
  return { running: body.running, sources: body.sources };
}

beforeAll(async () => {
  if (!existsSync(join(DIST_DIR, "server/index.js"))) throw new Error("run `npm run build` first: the nodes run the built server");
  mkdirSync(join(dir, "mirror"));
  // An earlier day's scores, taken from the real file: the data that a killed import must not damage.
  const lines: string[] = [];
  const input = createInterface({ input: createReadStream(FULL_EPSS).pipe(createGunzip()) });
  for await (const line of input) {
    lines.push(line);
    if (lines.length === EARLY_ROWS) break;
  }
  input.close();
  const early = join(dir, "epss_scores-2026-08-01.csv");
  writeFileSync(early, `${lines.join("\n")}\n`);
  feeds = await startFeedServer({ "/early/epss_scores-2026-08-01.csv": early, "/full/emba_epss_CVE_all_years_2026-08-16.csv.gz": FULL_EPSS });

  cluster = await startPostgresCluster();
  database = await createPostgresDatabase(cluster.url);
  admin = new pg.Client({ connectionString: database.url });
  // Dropping the database at the end ends this connection with an 'error' event.
  admin.on("error", () => undefined);
  await admin.connect();
});

afterAll(async () => {
  for (const server of processes) {
    if (server.child.exitCode === null && server.child.signalCode === null) {
      server.child.kill("SIGKILL");
      await server.exited;
    }
  }
  await admin?.end();
  await database?.drop();
  await cluster?.stop();
  await feeds?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("two web nodes and a worker on one PostgreSQL database", () => {
  it("serve the same build and the same data once the worker has imported", async () => {
    const first = await worker("/early/epss_scores-2026-08-01.csv");
    await waitFor("the first import", async () => (await epss())?.last_success_at);
    first.child.kill("SIGTERM");
    expect(await first.exited).toBe(0);

    web = [await start({ SERVER_ROLE: "web" }), await start({ SERVER_ROLE: "web" })];
    const builds = await Promise.all(web.map(async (node) => (await (await fetch(`${node.url}/_app/builds/latest.json`)).json()) as { id: string }));
    expect(builds[0]!.id).toMatch(/\S/);
    expect(builds[1]).toEqual(builds[0]);

    const [a, b] = await Promise.all(web.map(sourcesOf));
    expect(a).toEqual(b);
    const imported = (await epss())!.record_count;
    expect(imported).toBeGreaterThan(EARLY_ROWS / 2);
    expect(a!.sources.find((source) => source.name === "epss")?.records).toBe(imported);
    const pages = await Promise.all(web.map(async (node) => (await fetch(`${node.url}/api/v1/cves?sort=epss&order=desc&limit=20`)).json()));
    expect(pages[1]).toEqual(pages[0]);
  });

  it("share the rate limits: requests split across both nodes reach the limit together", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < LOOKUP_MAX + 2; i++) {
      const response = await fetch(`${web[i % 2]!.url}/api/v1/iocs/lookup`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ text: "8.8.8.8" }),
      });
      await response.arrayBuffer();
      statuses.push(response.status);
    }
    expect(statuses).toEqual([...Array(LOOKUP_MAX).fill(200), 429, 429]);
  });

  it(
    "run one import at a time, and a worker killed mid-import loses nothing: another worker finishes it",
    async () => {
      const before = await epss();
      const doomed = await worker("/full/emba_epss_CVE_all_years_2026-08-16.csv.gz", { group: true });
      // Mid-import: the full file has been served, and the lock names the worker's import.
      await waitFor(
        "the import to be under way",
        async () =>
          feeds.requests.some((request) => request.path.startsWith("/full/") && request.status === 200) &&
          (await sourcesOf(web[0]!)).running?.source === "epss",
      );

      const second = await worker("/full/emba_epss_CVE_all_years_2026-08-16.csv.gz");
      await waitFor("the second worker to find the lock taken", async () => second.output().includes("another import is running"));

      // The worker and its import process die together, as with a lost machine.
      process.kill(-doomed.child.pid!, "SIGKILL");
      await doomed.exited;

      // Nothing of the killed import is served: both nodes still have the earlier data.
      for (const node of web) expect((await sourcesOf(node)).sources.find((source) => source.name === "epss")?.records).toBe(before!.record_count);
      expect(await epss()).toEqual(before);

      // The second worker retries (a minute after finding the lock taken) and finishes the import.
      const after = await waitFor("the second worker's import", async () => {
        const row = await epss();
        return row && row.last_success_at !== before!.last_success_at ? row : null;
      });
      expect(after.record_count).toBeGreaterThan(before!.record_count!);
      // Finding the lock taken is not an error, and the import after it had none.
      expect(second.output()).not.toContain('"level":50');
      // The success is committed a moment before the lock is let go.
      await waitFor("the lock to be released", async () => (await sourcesOf(web[0]!)).running === null);
      const [a, b] = await Promise.all(web.map(sourcesOf));
      expect(a).toEqual(b);
      expect(a!.sources.find((source) => source.name === "epss")?.records).toBe(after.record_count);
    },
    WAIT_MS + 60_000,
  );
});
