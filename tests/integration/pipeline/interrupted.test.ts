import { spawn } from "node:child_process";
import { createReadStream, existsSync, mkdirSync, readdirSync, statSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { createInterface } from "node:readline";
import { createGunzip } from "node:zlib";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openSqliteDatabase } from "../../../server/db/connection";
import { loadPipelineConfig } from "../../../server/pipeline/config";
import { syncSource } from "../../../server/pipeline/sync";
import { createSqliteTestDatabase, recordingLogger, snapshot, startFeedServer, type SqliteTestDatabase } from "../../helpers/feed-server";

const projectRoot = resolve(import.meta.dirname, "../../..");
const FULL_EPSS = snapshot("epss", "emba_epss_CVE_all_years_2026-08-16.csv.gz");
const EARLY_ROWS = 2_000;
/** WAL this large means the killed import was well into its transaction. */
const WAL_BYTES_MID_IMPORT = 4 * 1024 * 1024;

let db: SqliteTestDatabase;
let earlyFile: string;
const { logger } = recordingLogger();

async function epssCount(): Promise<number> {
  const row = await db.db
    .selectFrom("epss_scores")
    .select((eb) => eb.fn.countAll().as("n"))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

beforeAll(async () => {
  db = await createSqliteTestDatabase();
  // An earlier day's scores, taken from the real file: the data the killed import must not damage.
  const lines: string[] = [];
  const input = createInterface({ input: createReadStream(FULL_EPSS).pipe(createGunzip()) });
  for await (const line of input) {
    lines.push(line);
    if (lines.length === EARLY_ROWS) break;
  }
  input.close();
  earlyFile = join(db.dir, "epss_scores-2026-08-01.csv");
  await writeFile(earlyFile, `${lines.join("\n")}\n`);
  const first = await syncSource("epss", {
    store: db.store,
    config: loadPipelineConfig({ SOURCE_EPSS_URL: earlyFile }),
    logger,
  });
  expect(first).toMatchObject({ status: "ok", counts: { added: EARLY_ROWS } });
});

afterAll(async () => {
  await db?.dispose();
});

describe("an import killed half-way", () => {
  it("leaves the previous data intact, and the next run completes", async () => {
    const child = spawn(process.execPath, ["--import", "tsx", "server/cli/sync.ts", "--source", "epss", "--db", db.path], {
      cwd: projectRoot,
      env: { ...process.env, SOURCE_EPSS_URL: FULL_EPSS, LOG_LEVEL: "silent" },
      stdio: "ignore",
    });
    const exited = new Promise<number | null>((done) => child.once("exit", (code) => done(code)));
    const wal = `${db.path}-wal`;
    let killed = false;
    for (let waited = 0; waited < 120_000 && child.exitCode === null; waited += 25) {
      if (existsSync(wal) && statSync(wal).size > WAL_BYTES_MID_IMPORT) {
        child.kill("SIGKILL");
        killed = true;
        break;
      }
      await delay(25);
    }
    await exited;
    expect(killed, "the import finished before it could be killed").toBe(true);

    // A new connection recovers from the WAL exactly as a restarted server would.
    await db.close();
    const reopened = openSqliteDatabase(db.path);
    db = { ...db, ...reopened };
    const check = await sql<{ integrity_check: string }>`pragma integrity_check`.execute(db.db);
    expect(check.rows[0]?.integrity_check).toBe("ok");
    expect(await epssCount()).toBe(EARLY_ROWS);
    const dates = await db.db.selectFrom("epss_scores").select("score_date").distinct().execute();
    expect(dates.map((d) => d.score_date)).toEqual(["2026-08-01"]);
    const row = await db.db.selectFrom("sources").selectAll().where("name", "=", "epss").executeTakeFirstOrThrow();
    expect(row).toMatchObject({ status: "ok", added: EARLY_ROWS, record_count: EARLY_ROWS });

    const next = await syncSource("epss", {
      store: db.store,
      config: loadPipelineConfig({ SOURCE_EPSS_URL: FULL_EPSS }),
      logger,
    });
    expect(next).toMatchObject({ status: "ok", counts: { added: 360_142, rejected: 0 } });
    expect(await epssCount()).toBe(EARLY_ROWS + 360_142);
  });
});

/** Runs `npm run sync`'s CLI on the test database; resolves to its exit code, or to the child itself to kill. */
function syncCli(args: string[], env: Record<string, string>) {
  const child = spawn(process.execPath, ["--import", "tsx", "server/cli/sync.ts", ...args, "--db", db.path], {
    cwd: projectRoot,
    env: { ...process.env, LOG_LEVEL: "silent", ...env },
    stdio: "ignore",
  });
  const exited = new Promise<number | null>((done) => child.once("exit", (code) => done(code)));
  return { child, exited };
}

describe("what a killed import leaves behind", () => {
  it("is removed by the next import, of whatever source", async () => {
    const feeds = await startFeedServer({ "/stamparm/maltrail/archive/refs/heads/master.tar.gz": snapshot("maltrail", "maltrail_trails_static.tar.gz") });
    // A temporary directory of the test's own, so what it finds there is this test's doing.
    const temp = join(db.dir, "tmp");
    mkdirSync(temp);
    const staging = `${db.path}.staging-maltrail`;
    // tsx keeps its cache there too.
    const downloadDirs = () => readdirSync(temp).filter((name) => name.startsWith("threat-radar-"));
    try {
      const run = syncCli(["--source", "maltrail"], { TMPDIR: temp, SOURCE_MALTRAIL_URL: feeds.url("/stamparm/maltrail/archive/refs/heads/master.tar.gz") });
      let killed = false;
      for (let waited = 0; waited < 120_000 && run.child.exitCode === null; waited += 25) {
        if (existsSync(staging) && statSync(staging).size > 1024 * 1024) {
          run.child.kill("SIGKILL");
          killed = true;
          break;
        }
        await delay(25);
      }
      await run.exited;
      expect(killed, "maltrail's import finished before it could be killed").toBe(true);
      expect(downloadDirs()).toEqual([expect.stringMatching(new RegExp(`^threat-radar-download-${run.child.pid}-maltrail-`))]);
      expect(existsSync(staging)).toBe(true);

      const next = syncCli(["--source", "cisa-kev"], { TMPDIR: temp, SOURCE_CISA_KEV_URL: snapshot("cisa-kev", "known_exploited_vulnerabilities.json") });
      expect(await next.exited).toBe(0);
      expect(downloadDirs()).toEqual([]);
      expect(existsSync(staging)).toBe(false);
    } finally {
      await feeds.close();
    }
  });
});
