import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { loadPipelineConfig, type PipelineConfig } from "../../../server/pipeline/config";
import { ImportBusyError } from "../../../server/pipeline/engine/lock";
import { locationKey, recordCrashedImport, type ImportOutcome } from "../../../server/pipeline/run";
import { inProcessRunner, type ImportRunner } from "../../../server/pipeline/runner";
import { dueAt, startScheduler, type Scheduler } from "../../../server/pipeline/scheduler";
import { SOURCES, type SourceName } from "../../../server/pipeline/source-catalogue";
import { resolveLocations } from "../../../server/pipeline/sync";
import { createTestDatabase, recordingLogger, snapshotDir, type TestDatabase } from "../../helpers/feed-server";

const MINUTE = 60_000;
const T0 = new Date("2026-08-23T00:00:00Z").getTime();
/** Three sources with their own intervals (minutes) and import times (minutes). */
const PLAN: Record<string, { interval: number; duration: number }> = {
  "cisa-kev": { interval: 60, duration: 5 },
  epss: { interval: 90, duration: 20 },
  feodotracker: { interval: 150, duration: 10 },
};

let db: TestDatabase;
let scheduler: Scheduler | null = null;
let recorder: ReturnType<typeof recordingLogger>;

function configFor(plan: Record<string, { interval: number }>, env: Record<string, string> = {}): PipelineConfig {
  for (const [name, { interval }] of Object.entries(plan)) env[`SYNC_INTERVAL_${name.toUpperCase().replace(/-/g, "_")}_MINUTES`] = String(interval);
  const config = loadPipelineConfig(env);
  for (const source of SOURCES) config.sources[source.name].enabled = source.name in plan;
  return config;
}

const calls: Array<{ name: string; start: number; end: number | null }> = [];
let active = 0;
let maxActive = 0;

/**
 * An import that takes a set time on the fake clock and records its run the
 * way the engine does (its start time as `last_run_at`), so that what the
 * scheduler reads back is what a real import leaves.
 */
function timedRunner(config: PipelineConfig, durations: Record<string, number>): ImportRunner {
  return async (name, signal) => {
    const call = { name, start: Date.now(), end: null as number | null };
    calls.push(call);
    active += 1;
    maxActive = Math.max(maxActive, active);
    try {
      await new Promise<void>((done, fail) => {
        const onAbort = () => {
          clearTimeout(timer);
          fail(signal.reason);
        };
        const timer = setTimeout(() => {
          signal.removeEventListener("abort", onAbort);
          done();
        }, durations[name] ?? MINUTE);
        signal.addEventListener("abort", onAbort, { once: true });
      });
    } finally {
      active -= 1;
    }
    call.end = Date.now();
    const source = SOURCES.find((s) => s.name === name)!;
    const row = {
      last_run_at: new Date(call.start).toISOString(),
      last_success_at: new Date(call.start).toISOString(),
      status: "ok",
      location_key: locationKey(resolveLocations(source, config, null)),
    };
    await db.db
      .insertInto("sources")
      .values({ name, ...row })
      .onConflict((oc) => oc.column("name").doUpdateSet(row))
      .execute();
    return {
      source: name,
      status: "ok",
      counts: { added: 0, updated: 0, unchanged: 0, rejected: 0, removed: 0 },
      durationMs: call.end - call.start,
      error: null,
      recordCount: 0,
    } satisfies ImportOutcome;
  };
}

const recordCrash = (source: string, message: string, now: Date) => recordCrashedImport(db.db, source, message, now);

/** Turns of the real event loop (setImmediate is not faked) until `check` holds: real SQLite and file work finish, the fake clock does not move. */
/** Waits, in real time (the faked clock stands still), for work on the real file system and database. */
async function until(check: () => boolean | Promise<boolean>, withinMs = 30_000): Promise<void> {
  const deadline = performance.now() + withinMs;
  while (performance.now() < deadline) {
    if (await check()) return;
    await new Promise((done) => setImmediate(done));
  }
  throw new Error("condition never held");
}

/** Lets the scheduler's start-up queries finish, then fires what is due at once (the faked clock fires nothing by itself). */
async function started(): Promise<void> {
  await until(() => recorder.entries.some((e) => e.msg === "sync scheduler started"));
  await vi.advanceTimersByTimeAsync(0);
}

const runsOf = (name: string) => calls.filter((call) => call.name === name);
const minutesAfterT0 = (ms: number | null) => (ms === null ? null : (ms - T0) / MINUTE);

beforeEach(async () => {
  db = await createTestDatabase();
  recorder = recordingLogger();
  calls.length = 0;
  active = 0;
  maxActive = 0;
  // Only the clock the scheduler and the imports use; SQLite and setImmediate stay real.
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"], now: T0 });
});

afterEach(async () => {
  await scheduler?.stop();
  scheduler = null;
  vi.useRealTimers();
  await db.dispose();
});

describe("scheduler with three sources", () => {
  const durations = Object.fromEntries(Object.entries(PLAN).map(([name, { duration }]) => [name, duration * MINUTE]));

  it("never runs two imports at once, and runs each source at its own interval", async () => {
    const config = configFor(PLAN);
    scheduler = startScheduler({ db: db.db, config, logger: recorder.logger, runner: timedRunner(config, durations), recordCrash });
    await started();
    await vi.advanceTimersByTimeAsync(24 * 60 * MINUTE);

    expect(new Set(calls.map((c) => c.name))).toEqual(new Set(Object.keys(PLAN)));
    expect(maxActive).toBe(1);
    const finished = calls.filter((c) => c.end !== null);
    for (let i = 1; i < finished.length; i++) expect(finished[i]!.start).toBeGreaterThanOrEqual(finished[i - 1]!.end!);

    for (const [name, { interval }] of Object.entries(PLAN)) {
      const runs = runsOf(name);
      const othersMinutes = Object.entries(PLAN)
        .filter(([other]) => other !== name)
        .reduce((sum, [, p]) => sum + p.duration, 0);
      // Each run starts one interval after the previous one started; it may wait for imports of other sources, never longer.
      for (let i = 1; i < runs.length; i++) {
        const gap = (runs[i]!.start - runs[i - 1]!.start) / MINUTE;
        expect(gap, `${name} run ${i}`).toBeGreaterThanOrEqual(interval);
        expect(gap, `${name} run ${i}`).toBeLessThanOrEqual(interval + othersMinutes);
      }
      expect(runs.length, name).toBeGreaterThanOrEqual(Math.floor((24 * 60) / (interval + othersMinutes)));
      expect(runs.length, name).toBeLessThanOrEqual(Math.ceil((24 * 60) / interval));
    }
    expect(runsOf("cisa-kev").length).toBeGreaterThan(runsOf("epss").length);
    expect(runsOf("epss").length).toBeGreaterThan(runsOf("feodotracker").length);
  });

  it("after a restart, a source is first due one interval after its recorded last run", async () => {
    const config = configFor(PLAN);
    const at = (minutes: number) => new Date(T0 + minutes * MINUTE).toISOString();
    const key = (name: string) =>
      locationKey(
        resolveLocations(
          SOURCES.find((s) => s.name === name)!,
          config,
          null,
        ),
      );
    await db.db
      .insertInto("sources")
      .values([
        { name: "cisa-kev", last_run_at: at(-30), last_success_at: at(-30), status: "ok", location_key: key("cisa-kev") },
        { name: "epss", last_run_at: at(-200), last_success_at: at(-200), status: "ok", location_key: key("epss") },
      ])
      .execute();
    scheduler = startScheduler({ db: db.db, config, logger: recorder.logger, runner: timedRunner(config, durations), recordCrash });
    await started();
    await vi.advanceTimersByTimeAsync(60 * MINUTE);

    // EPSS is overdue and feodotracker never ran: both at once, in order; KEV ran 30 minutes ago every 60: due at +30.
    expect(calls.map((c) => [c.name, minutesAfterT0(c.start), minutesAfterT0(c.end)])).toEqual([
      ["epss", 0, 20],
      ["feodotracker", 20, 30],
      ["cisa-kev", 30, 35],
    ]);
  });

  it("queues runNow behind the import in progress and joins a run already queued", async () => {
    const config = configFor(PLAN);
    config.syncEnabled = false;
    scheduler = startScheduler({ db: db.db, config, logger: recorder.logger, runner: timedRunner(config, durations), recordCrash });
    const kev = scheduler.runNow("cisa-kev");
    await vi.advanceTimersByTimeAsync(MINUTE);
    const epss = [scheduler.runNow("epss"), scheduler.runNow("epss")];
    const feodo = scheduler.runNow("feodotracker" as SourceName);
    await vi.advanceTimersByTimeAsync(60 * MINUTE);
    const outcomes = await Promise.all([kev, ...epss, feodo]);
    expect(outcomes.map((o) => o.source)).toEqual(["cisa-kev", "epss", "epss", "feodotracker"]);
    expect(outcomes[1]).toBe(outcomes[2]);
    expect(calls.map((c) => [c.name, minutesAfterT0(c.start), minutesAfterT0(c.end)])).toEqual([
      ["cisa-kev", 0, 5],
      ["epss", 5, 25],
      ["feodotracker", 25, 35],
    ]);
    expect(maxActive).toBe(1);
  });
});

describe("stopping", () => {
  it("cuts the running import short and drops the queued ones without logging an error", async () => {
    const config = configFor({ "cisa-kev": { interval: 60 }, epss: { interval: 60 } });
    scheduler = startScheduler({
      db: db.db,
      config,
      logger: recorder.logger,
      runner: timedRunner(config, { "cisa-kev": 30 * MINUTE, epss: 30 * MINUTE }),
      recordCrash,
    });
    await started();
    await vi.advanceTimersByTimeAsync(MINUTE);
    expect(calls.map((call) => call.end)).toEqual([null]);
    await scheduler.stop();
    scheduler = null;
    await vi.advanceTimersByTimeAsync(0);
    expect(calls).toHaveLength(1);
    expect(recorder.entries.filter((entry) => (entry.level as number) >= 50)).toEqual([]);
  });
});

describe("a source that fails", () => {
  it("is tried again after 5, 10, 20 minutes… whatever its interval, with the cause and the next attempt recorded", async () => {
    // Weekly, and its file is missing: the real engine fails with ENOENT.
    const config = configFor({ "mitre-cwe": { interval: 7 * 24 * 60 } }, { SOURCE_MITRE_CWE_URL: join(db.dir, "cwec_missing.xml") });
    const runner = inProcessRunner({ store: db.store, config, logger: recorder.logger, now: () => new Date() });
    scheduler = startScheduler({ db: db.db, config, logger: recorder.logger, runner, recordCrash });
    await started();
    const attempts = async () =>
      (await db.db
        .selectFrom("sources")
        .select(["runs", "consecutive_failures", "next_attempt_at", "last_error", "last_error_detail"])
        .where("name", "=", "mitre-cwe")
        .executeTakeFirst()) ?? null;

    await until(async () => (await attempts())?.runs === 1);
    const first = (await attempts())!;
    expect(first.consecutive_failures).toBe(1);
    expect(first.next_attempt_at).toBe(new Date(T0 + 5 * MINUTE).toISOString());
    expect(first.last_error).toContain("ENOENT");
    expect(JSON.parse(first.last_error_detail!).hint).toMatch(/SYNC_MIRROR_DIR/);

    await vi.advanceTimersByTimeAsync(5 * MINUTE);
    await until(async () => (await attempts())?.runs === 2);
    expect((await attempts())!.next_attempt_at).toBe(new Date(T0 + 15 * MINUTE).toISOString());
    await vi.advanceTimersByTimeAsync(10 * MINUTE);
    await until(async () => (await attempts())?.runs === 3);
    expect((await attempts())!.next_attempt_at).toBe(new Date(T0 + 35 * MINUTE).toISOString());
  });

  it("is due at once when its location changed since it last ran (an operator set a mirror)", () => {
    const row = { last_run_at: new Date(T0).toISOString(), next_attempt_at: null, status: "ok", location_key: "https://example.org/feed.json" };
    expect(dueAt(row, 60, "https://example.org/feed.json")).toBe(T0 + 60 * MINUTE);
    expect(dueAt(row, 60, join(snapshotDir, "cisa-kev/known_exploited_vulnerabilities.json"))).toBe(0);
    expect(dueAt({ ...row, status: "failed", next_attempt_at: new Date(T0 + 5 * MINUTE).toISOString() }, 24 * 60, row.location_key)).toBe(T0 + 5 * MINUTE);
    expect(dueAt(undefined, 60, "x")).toBe(0);
  });

  it("after a first start that failed, is due at once when a mirror is set; once it succeeded, its data's location is kept", async () => {
    const interval = 7 * 24 * 60;
    const cwe = SOURCES.find((source) => source.name === "mitre-cwe")!;
    const offline = configFor({ "mitre-cwe": { interval } }, { SOURCE_MITRE_CWE_URL: join(db.dir, "cwec_missing.xml") });
    const mirrored = configFor({ "mitre-cwe": { interval } }, { SYNC_MIRROR_DIR: snapshotDir });
    const keyOf = (config: PipelineConfig) => locationKey(resolveLocations(cwe, config, config.mirrorDir));
    const run = (config: PipelineConfig) =>
      inProcessRunner({ store: db.store, config, logger: recorder.logger, now: () => new Date() })("mitre-cwe", new AbortController().signal);
    const row = async () => (await db.db.selectFrom("sources").selectAll().where("name", "=", "mitre-cwe").executeTakeFirst())!;

    expect((await run(offline)).status).toBe("failed");
    const retry = T0 + 5 * MINUTE;
    expect(dueAt(await row(), interval, keyOf(offline))).toBe(retry);
    expect(dueAt(await row(), interval, keyOf(mirrored))).toBe(0);

    expect((await run(mirrored)).status).toBe("ok");
    expect((await run(offline)).status).toBe("failed");
    expect((await row()).location_key).toBe(keyOf(mirrored));
    expect(dueAt(await row(), interval, keyOf(mirrored))).toBe(retry);
  });

  it("is looked for again one interval on when the mirror lacks it, not retried in a loop", async () => {
    // threatfox has no file among the snapshots; its offline first attempt recorded the publisher's URL.
    const config = configFor({ threatfox: { interval: 60 } }, { SYNC_MIRROR_DIR: snapshotDir });
    await db.db
      .insertInto("sources")
      .values({
        name: "threatfox",
        last_run_at: new Date(T0).toISOString(),
        status: "failed",
        next_attempt_at: new Date(T0 + 5 * MINUTE).toISOString(),
        location_key: "https://threatfox.abuse.ch/export/json/recent/",
      })
      .execute();
    scheduler = startScheduler({ db: db.db, config, logger: recorder.logger, runner: timedRunner(config, {}), recordCrash });
    await started();
    await vi.advanceTimersByTimeAsync(59 * MINUTE);
    expect(calls).toEqual([]);
    expect(scheduler.nextRuns().get("threatfox")).toEqual(new Date(T0 + 60 * MINUTE));
    expect(recorder.entries.filter((entry) => entry.source === "threatfox" && entry.level === 40)).toHaveLength(1);
  });

  it("waits a minute when another process holds the import lock, and records a crash of its import", async () => {
    const config = configFor({ "cisa-kev": { interval: 60 } });
    let attempt = 0;
    const runner: ImportRunner = async (name) => {
      attempt += 1;
      if (attempt === 1) throw new ImportBusyError({ holder: "pid 1 on elsewhere", source: "epss", startedAt: new Date(T0).toISOString() });
      throw new Error(`the import process for ${name} ended (SIGKILL) without an outcome`);
    };
    scheduler = startScheduler({ db: db.db, config, logger: recorder.logger, runner, recordCrash });
    await started();
    await until(() => attempt === 1 && recorder.entries.some((e) => e.msg === "another import is running; trying again in a minute"));
    await vi.advanceTimersByTimeAsync(MINUTE);
    const crashed = async () => db.db.selectFrom("sources").selectAll().where("name", "=", "cisa-kev").executeTakeFirst();
    await until(async () => (await crashed())?.status === "failed");
    const row = (await crashed())!;
    expect(attempt).toBe(2);
    expect(row.last_error).toContain("SIGKILL");
    expect(row.next_attempt_at).toBe(new Date(T0 + MINUTE + 5 * MINUTE).toISOString());
  });
});
