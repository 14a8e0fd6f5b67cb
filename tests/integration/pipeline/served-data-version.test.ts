import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrateToLatest } from "../../../server/db/migrate";
import { SqliteDataVersion } from "../../../server/db/sqlite/data-version";
import { acquireImportLock, type ImportLock } from "../../../server/pipeline/engine/lock";
import { openSqliteImportStore, type ImportStore } from "../../../server/pipeline/engine/store";

// SQLite's version. PostgreSQL's follows its triggers' notifications instead:
// tests/integration/postgres/import-lock.test.ts.
const dir = mkdtempSync(join(tmpdir(), "threat-radar-data-version-"));
const path = join(dir, "version.sqlite");
let store: ImportStore;
let version: SqliteDataVersion;

beforeAll(async () => {
  store = openSqliteImportStore(path);
  await migrateToLatest(store.db);
  version = new SqliteDataVersion(path);
});
afterAll(async () => {
  version.close();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const addTag = (name: string) => sql`insert into tags (name) values (${name})`.execute(store.db);
const publishSource = (name: string) => sql`insert into sources (name, status) values (${name}, 'ok')`.execute(store.db);

/** Whether `write` moved the version the web process's caches are keyed by. */
async function moves(write: () => Promise<unknown>): Promise<boolean> {
  const before = version.current();
  await write();
  return version.current() !== before;
}

/** Which versions `write` moved: each domain's, and the one of all the data. */
async function movedDomains(write: () => Promise<unknown>): Promise<{ cve: boolean; ioc: boolean; all: boolean }> {
  const before = { cve: version.current("cve"), ioc: version.current("ioc"), all: version.current() };
  await write();
  return { cve: version.current("cve") !== before.cve, ioc: version.current("ioc") !== before.ioc, all: version.current() !== before.all };
}

describe("the served data version (SQLite)", () => {
  it("does not move when an import opens its connection on a migrated file (its settings commit nothing)", async () => {
    expect(
      await moves(async () => {
        const another = openSqliteImportStore(path);
        await migrateToLatest(another.db);
        await another.close();
      }),
    ).toBe(false);
  });

  it("moves on any commit while no import runs", async () => {
    expect(await moves(() => addTag("tag 1"))).toBe(true);
  });

  describe("while an import holds the lock", () => {
    let lock: ImportLock;
    it("does not move when the import takes the lock, names its source or heartbeats", async () => {
      expect(await moves(async () => (lock = await acquireImportLock(store.db)))).toBe(false);
      expect(await moves(() => lock.setSource("maltrail"))).toBe(false);
      // The status rows follow every commit all the same (GET /api/v1/sources reads them).
      expect(version.statusRows().importLock).toMatchObject({ source: "maltrail" });
      expect(await moves(() => sql`update import_lock set heartbeat_at = ${new Date().toISOString()}`.execute(store.db))).toBe(false);
    });

    it("does not move for next-generation tables filled chunk by chunk, nor for the planner's statistics", async () => {
      expect(
        await moves(async () => {
          await sql`create table indicators_next (id integer primary key, value text)`.execute(store.db);
          for (let chunk = 0; chunk < 3; chunk++) await sql`insert into indicators_next (value) values (${`chunk ${chunk}`})`.execute(store.db);
          await sql`analyze`.execute(store.db);
          await sql`drop table indicators_next`.execute(store.db);
        }),
      ).toBe(false);
    });

    it("moves when the import publishes (its sources row, written with the data)", async () => {
      expect(
        await moves(() =>
          store.db.transaction().execute(async (trx) => {
            await sql`insert into tags (name) values ('published')`.execute(trx);
            await sql`insert into sources (name, status) values ('maltrail', 'ok')`.execute(trx);
          }),
        ),
      ).toBe(true);
    });

    it("moves the publishing source's domain alone: an EPSS import leaves the IOC pages' version, maltrail's the CVE pages'", async () => {
      expect(await movedDomains(() => publishSource("epss"))).toEqual({ cve: true, ioc: false, all: true });
      expect(await movedDomains(() => sql`update sources set status = 'ok', records_read = 5 where name = 'maltrail'`.execute(store.db))).toEqual({
        cve: false,
        ioc: true,
        all: true,
      });
      // A feed this build does not know counts for both.
      expect(await movedDomains(() => publishSource("some-future-feed"))).toEqual({ cve: true, ioc: true, all: true });
    });

    it("moves when a failure is recorded", async () => {
      expect(await moves(() => sql`update sources set status = 'failed', last_error = 'fetch failed' where name = 'maltrail'`.execute(store.db))).toBe(true);
      expect(version.statusRows().sources).toContainEqual(expect.objectContaining({ name: "maltrail", status: "failed", last_error: "fetch failed" }));
    });

    it("moves every domain when the import ends, so another writer's commit made during it is seen then", async () => {
      expect(await moves(() => addTag("tag 3"))).toBe(false);
      expect(await movedDomains(() => lock.release())).toEqual({ cve: true, ioc: true, all: true });
    });
  });

  it("moves on every commit again when the lock's holder is gone (killed without releasing it)", async () => {
    await sql`insert into import_lock (id, holder, source, started_at, heartbeat_at) values (1, 'pid 1 on elsewhere', null, '2000-01-01T00:00:00.000Z', '2000-01-01T00:00:00.000Z')`.execute(
      store.db,
    );
    expect(await moves(() => addTag("tag 4"))).toBe(true);
    expect(await moves(() => publishSource("kev"))).toBe(true);
  });
});
