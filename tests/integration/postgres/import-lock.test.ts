import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { setTimeout as delay } from "node:timers/promises";
import { Kysely, PostgresDialect } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrateToLatest } from "../../../server/db/migrate";
import { PostgresDataVersion } from "../../../server/db/postgres/data-version";
import type { Database } from "../../../server/db/schema";
import { acquireImportLock, currentImport, ImportBusyError } from "../../../server/pipeline/engine/lock";
import { openPostgresImportStore } from "../../../server/pipeline/engine/store";
import { PROJECT_ROOT } from "../../helpers/paths";
import { createPostgresDatabase, startPostgresCluster, type PostgresCluster, type TestPostgresDatabase, testPool } from "../../helpers/postgres-cluster";

let cluster: PostgresCluster;
let database: TestPostgresDatabase;
const nodes: Array<Kysely<Database>> = [];
const versions: PostgresDataVersion[] = [];

/** A node's own pool on the shared database (each node of a deployment has one). */
function node(): Kysely<Database> {
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: testPool(database.url, 3) }) });
  nodes.push(db);
  return db;
}

beforeAll(async () => {
  cluster = await startPostgresCluster();
  database = await createPostgresDatabase(cluster.url);
  await migrateToLatest(node());
});

afterAll(async () => {
  await Promise.all(versions.map((version) => version.close()));
  await Promise.all(nodes.map((db) => db.destroy()));
  await database?.drop();
  await cluster?.stop();
});

/**
 * A process of its own that takes the import lock, names its source, says
 * "holding" on stdout and then waits to be killed.
 */
function holderProcess(): Promise<{ pid: number; kill(): Promise<void> }> {
  const code = `
    import { Kysely, PostgresDialect } from "kysely";
    import pg from "pg";
    import { acquireImportLock } from "./server/pipeline/engine/lock.ts";
    const db = new Kysely({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: ${JSON.stringify(database.url)}, max: 2 }) }) });
    const lock = await acquireImportLock(db);
    await lock.setSource("epss");
    console.log("holding");
    setInterval(() => {}, 60_000);
  `;
  const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", code], { cwd: PROJECT_ROOT, stdio: ["ignore", "pipe", "inherit"] });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return new Promise((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`the holder exited (${code}) before taking the lock`)));
    createInterface({ input: child.stdout! }).on("line", (line) => {
      if (line === "holding") resolve({ pid: child.pid!, kill: async () => void (child.kill("SIGKILL"), await exited) });
    });
  });
}

describe("the import lock on PostgreSQL (advisory lock)", () => {
  it("lets one node import at a time and names the holder, its source and start time to the others", async () => {
    const first = node();
    const second = node();
    const lock = await acquireImportLock(first);
    await lock.setSource("cisa-kev");
    const busy = await acquireImportLock(second).catch((error: unknown) => error);
    expect(busy).toBeInstanceOf(ImportBusyError);
    expect((busy as ImportBusyError).running).toMatchObject({ holder: `pid ${process.pid} on ${(await import("node:os")).hostname()}`, source: "cisa-kev" });
    expect((busy as ImportBusyError).running.startedAt).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(await currentImport(second)).toMatchObject({ source: "cisa-kev" });

    await lock.release();
    expect(await currentImport(second)).toBeNull();
    const next = await acquireImportLock(second);
    await next.release();
  });

  it("is released when its holder is killed (SIGKILL), and another process takes over", async () => {
    const holder = await holderProcess();
    const db = node();
    const busy = await acquireImportLock(db).catch((error: unknown) => error);
    expect(busy).toBeInstanceOf(ImportBusyError);
    expect((busy as ImportBusyError).running).toMatchObject({ holder: expect.stringContaining(`pid ${holder.pid} `), source: "epss" });

    await holder.kill();
    // PostgreSQL ends the dead client's session once it sees the connection closed: wait for that, generously.
    let lock = null;
    for (let attempt = 0; attempt < 300 && !lock; attempt++) {
      lock = await acquireImportLock(db).catch((error: unknown) => {
        if (error instanceof ImportBusyError) return null;
        throw error;
      });
      if (!lock) await delay(100);
    }
    expect(lock).not.toBeNull();
    // The dead holder's row was taken over, not left to confuse /api/v1/sources.
    expect(await currentImport(db)).toMatchObject({ holder: expect.stringContaining(`pid ${process.pid} `), source: null });
    await lock!.release();
  });

  it("reports no running import once a killed holder's session is gone, though its row remains", async () => {
    const holder = await holderProcess();
    const db = node();
    expect(await currentImport(db)).toMatchObject({ source: "epss" });
    await holder.kill();
    let running = await currentImport(db);
    for (let attempt = 0; attempt < 300 && running; attempt++) {
      await delay(100);
      running = await currentImport(db);
    }
    expect(running).toBeNull();
    const rows = await db.selectFrom("import_lock").selectAll().execute();
    expect(rows).toHaveLength(1);
  });
});

describe("a web node following the import lock on PostgreSQL", () => {
  /** A web node's data version, checking a lock it believes held every 200 ms (10 s in production). */
  async function webNode(): Promise<PostgresDataVersion> {
    const version = new PostgresDataVersion(database.url, undefined, 200);
    versions.push(version);
    await version.start();
    return version;
  }

  it("knows an import runs from the holder's notifications, without its data version moving", async () => {
    const web = await webNode();
    expect(web.importRunning()).toBe(false);
    const before = web.current();
    let status = web.statusVersion();
    const lock = await acquireImportLock(node());
    await expect.poll(() => web.importRunning()).toBe(true);
    // The lock's row changed: a reading of it for /api/v1/sources is not reused.
    expect(web.statusVersion()).not.toBe(status);
    status = web.statusVersion();
    await lock.setSource("epss");
    await expect.poll(() => web.statusVersion()).not.toBe(status);
    status = web.statusVersion();
    await lock.release();
    await expect.poll(() => web.importRunning()).toBe(false);
    expect(web.statusVersion()).not.toBe(status);
    // Taking the lock, naming the source and giving it back are not data: cached pages stay.
    expect(web.current()).toBe(before);
  });

  it("finds a lock taken before it started", async () => {
    const lock = await acquireImportLock(node());
    const web = await webNode();
    expect(web.importRunning()).toBe(true);
    await lock.release();
    await expect.poll(() => web.importRunning()).toBe(false);
  });

  it("notices a holder killed with SIGKILL, which notifies nothing, once its session is gone", async () => {
    const web = await webNode();
    const holder = await holderProcess();
    await expect.poll(() => web.importRunning()).toBe(true);
    const status = web.statusVersion();
    await holder.kill();
    await expect.poll(() => web.importRunning(), { timeout: 30_000, interval: 100 }).toBe(false);
    expect(web.statusVersion()).not.toBe(status);
    // Its row remains (the next holder overwrites it); the node goes by the lock.
    expect(await node().selectFrom("import_lock").selectAll().execute()).toHaveLength(1);
  });

  it("keeps a version per radar: while an import runs, its writes move only its publishing source's radar", async () => {
    const web = await webNode();
    const store = openPostgresImportStore(database.url);
    try {
      const versions = () => ({ cve: web.current("cve"), ioc: web.current("ioc"), all: web.current() });
      const before = versions();
      const lock = await acquireImportLock(store.db);
      await expect.poll(() => web.importRunning()).toBe(true);
      // The import's own write, then its publish: data and `sources` row in one transaction, as a merge commits.
      await store.db.insertInto("tags").values({ name: "staged by the import" }).execute();
      await store.db.transaction().execute(async (trx) => {
        await trx.insertInto("tags").values({ name: "published by epss" }).execute();
        await trx.insertInto("sources").values({ name: "epss", status: "ok" }).execute();
      });
      await expect.poll(() => web.current("cve")).not.toBe(before.cve);
      expect(web.current("ioc")).toBe(before.ioc);
      expect(web.current()).not.toBe(before.all);

      // A recorded failure moves its source's radar too (the home page shows feeds' status).
      const afterEpss = versions();
      await store.db.insertInto("sources").values({ name: "maltrail", status: "failed" }).execute();
      await expect.poll(() => web.current("ioc")).not.toBe(afterEpss.ioc);
      expect(web.current("cve")).toBe(afterEpss.cve);

      // With only the import writing, its end moves nothing more.
      const atEnd = versions();
      await lock.release();
      await expect.poll(() => web.importRunning()).toBe(false);
      expect(versions()).toEqual(atEnd);

      // With no import running, any commit moves both, the import pool's too.
      await store.db.insertInto("tags").values({ name: "between imports" }).execute();
      await expect.poll(() => web.current("cve")).not.toBe(atEnd.cve);
      expect(web.current("ioc")).not.toBe(atEnd.ioc);
    } finally {
      await store.close();
    }
  });

  it("moves every radar when an import ends after someone else wrote during it", async () => {
    const web = await webNode();
    const lock = await acquireImportLock(node());
    await expect.poll(() => web.importRunning()).toBe(true);
    const before = { cve: web.current("cve"), ioc: web.current("ioc") };
    const status = web.statusVersion();
    await node().insertInto("tags").values({ name: "tagged by hand during an import" }).execute();
    // Seen by /api/v1/sources' reading at once, by the pages once the import ends.
    await expect.poll(() => web.statusVersion()).not.toBe(status);
    expect({ cve: web.current("cve"), ioc: web.current("ioc") }).toEqual(before);
    await lock.release();
    await expect.poll(() => web.importRunning()).toBe(false);
    expect(web.current("cve")).not.toBe(before.cve);
    expect(web.current("ioc")).not.toBe(before.ioc);
  });
});
