import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import SQLite from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { QueryTimeoutError, SqliteReadPool } from "../../../server/db/sqlite/read-pool";
import { ClientGoneError, runInScope } from "../../../server/runtime/request-scope";

/** A read that keeps a worker busy for a moment. */
const COUNT_TO_A_MILLION = "with recursive n(i) as (select 1 union all select i + 1 from n where i < 1000000) select count(*) as c from n";
/** A query that runs for minutes unless it is stopped. */
const ENDLESS = "with recursive n(i) as (select 1 union all select i + 1 from n where i < 10000000000) select count(*) as c from n";

describe("the read pool", () => {
  let dir: string;
  let pool: SqliteReadPool;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "threat-radar-pool-"));
    const path = join(dir, "pool.sqlite");
    const writer = new SQLite(path);
    writer.pragma("journal_mode = WAL");
    writer.exec("create table t (x integer); insert into t values (1), (2), (3);");
    writer.close();
    pool = new SqliteReadPool({ path, threads: 1, queryTimeoutMs: 60_000 });
  });
  afterAll(async () => {
    await pool.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("answers reads on a worker thread", async () => {
    expect(await pool.run("select sum(x) as s from t where x > ?", [1])).toEqual({ rows: [{ s: 5 }] });
  });

  it("refuses to write", async () => {
    await expect(pool.run("insert into t values (4)", [])).rejects.toThrow(/read-only/);
  });

  it("does no work for a client that left before its read started", async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(runInScope({ signal: controller.signal }, () => pool.run("select 1", []))).rejects.toBeInstanceOf(ClientGoneError);
  });

  it("drops a waiting read when its client leaves, and lets the running one finish", async () => {
    // The only worker is busy with a read that takes a moment; the next one waits in line.
    const running = pool.run(COUNT_TO_A_MILLION, []);
    const controller = new AbortController();
    const waiting = runInScope({ signal: controller.signal }, () => pool.run("select count(*) as n from t", []));
    controller.abort();
    await expect(waiting).rejects.toBeInstanceOf(ClientGoneError);
    expect(await running).toEqual({ rows: [{ c: 1_000_000 }] });
    expect(pool.stats().queued).toBe(0);
  });

  it("runs one worker when idle, starts more when reads overlap, and stops them after a quiet spell", async () => {
    const elastic = new SqliteReadPool({ path: join(dir, "pool.sqlite"), threads: 2, queryTimeoutMs: 60_000, idleWorkerMs: 100 });
    const startedWhen = async (wanted: number) => {
      while (elastic.stats().started !== wanted) await new Promise((resume) => setTimeout(resume, 10));
    };
    try {
      await startedWhen(1);
      expect(await elastic.run("select 1 as one", [])).toEqual({ rows: [{ one: 1 }] });
      expect(elastic.stats()).toMatchObject({ threads: 2, started: 1 });
      const overlapping = [elastic.run(COUNT_TO_A_MILLION, []), elastic.run(COUNT_TO_A_MILLION, [])];
      await startedWhen(2);
      expect(await Promise.all(overlapping)).toEqual([{ rows: [{ c: 1_000_000 }] }, { rows: [{ c: 1_000_000 }] }]);
      // The second worker stops once it has waited idleWorkerMs; the first stays.
      await startedWhen(1);
      expect(await elastic.run("select 2 as two", [])).toEqual({ rows: [{ two: 2 }] });
    } finally {
      await elastic.close();
    }
  });

  it("stops a read that runs past its time limit", async () => {
    const strict = new SqliteReadPool({ path: join(dir, "pool.sqlite"), threads: 1, queryTimeoutMs: 200 });
    try {
      await expect(strict.run(ENDLESS, [])).rejects.toBeInstanceOf(QueryTimeoutError);
      // The stopped worker is replaced; until its replacement has started, a read may time out too.
      let answer: unknown = null;
      while (answer === null) answer = await strict.run("select 2 as two", []).catch(() => null);
      expect(answer).toEqual({ rows: [{ two: 2 }] });
    } finally {
      await strict.close();
    }
  });
});
