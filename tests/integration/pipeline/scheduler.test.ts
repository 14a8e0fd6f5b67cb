import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { loadPipelineConfig, type PipelineConfig } from "../../../server/pipeline/config";
import type { ImportOutcome } from "../../../server/pipeline/run";
import { startScheduler, type Scheduler } from "../../../server/pipeline/scheduler";
import { SOURCES, type SourceName } from "../../../server/pipeline/sources";
import { createTestDatabase, recordingLogger, type TestDatabase } from "../../helpers/feed-server";

/**
 * The scheduler with several sources on a fake clock. Imports are stood in
 * for by a fake syncSource that takes a set time on that clock, so whether
 * two ever overlap, and when each one starts, can be read off exactly.
 */
const fake = vi.hoisted(() => ({
  calls: [] as Array<{ name: string; start: number; end: number | null }>,
  active: 0,
  maxActive: 0,
  durationMs: {} as Record<string, number>,
}));

vi.mock("../../../server/pipeline/sync", () => ({
  syncSource: vi.fn(async (name: string, options: { signal?: AbortSignal }): Promise<ImportOutcome> => {
    const call = { name, start: Date.now(), end: null as number | null };
    fake.calls.push(call);
    fake.active += 1;
    fake.maxActive = Math.max(fake.maxActive, fake.active);
    try {
      // Like a real import, it stops when the scheduler is stopped.
      await new Promise<void>((done, fail) => {
        const onAbort = () => {
          clearTimeout(timer);
          fail(options.signal?.reason);
        };
        const timer = setTimeout(() => {
          options.signal?.removeEventListener("abort", onAbort);
          done();
        }, fake.durationMs[name] ?? 60_000);
        options.signal?.addEventListener("abort", onAbort, { once: true });
      });
    } finally {
      fake.active -= 1;
    }
    call.end = Date.now();
    return {
      source: name,
      status: "ok",
      counts: { added: 0, updated: 0, unchanged: 0, rejected: 0, removed: 0 },
      durationMs: call.end - call.start,
      error: null,
      recordCount: 0,
    };
  }),
}));

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

function configFor(plan: typeof PLAN): PipelineConfig {
  const env: Record<string, string> = {};
  for (const [name, { interval }] of Object.entries(plan)) env[`SYNC_INTERVAL_${name.toUpperCase().replace(/-/g, "_")}_MINUTES`] = String(interval);
  const config = loadPipelineConfig(env);
  for (const source of SOURCES) config.sources[source.name].enabled = source.name in plan;
  return config;
}

/** Lets the scheduler's start-up query (real SQLite, real promises) finish before the clock moves. */
async function started(): Promise<void> {
  for (let i = 0; i < 200 && !recorder.entries.some((e) => e.msg === "sync scheduler started"); i++) {
    await new Promise((done) => setImmediate(done));
  }
  expect(recorder.entries.some((e) => e.msg === "sync scheduler started")).toBe(true);
}

function runsOf(name: string) {
  return fake.calls.filter((call) => call.name === name);
}

const minutesAfterT0 = (ms: number | null) => (ms === null ? null : (ms - T0) / MINUTE);

beforeEach(async () => {
  db = await createTestDatabase();
  recorder = recordingLogger();
  fake.calls.length = 0;
  fake.active = 0;
  fake.maxActive = 0;
  for (const [name, { duration }] of Object.entries(PLAN)) fake.durationMs[name] = duration * MINUTE;
  // Only the clock the scheduler and the fake imports use; SQLite and setImmediate stay real.
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"], now: T0 });
});

afterEach(async () => {
  await scheduler?.stop();
  scheduler = null;
  vi.useRealTimers();
  await db.dispose();
});

describe("scheduler with three sources", () => {
  it("never runs two imports at once, and runs each source at its own interval", async () => {
    scheduler = startScheduler({ db: db.db, config: configFor(PLAN), logger: recorder.logger });
    await started();
    await vi.advanceTimersByTimeAsync(24 * 60 * MINUTE);

    expect(new Set(fake.calls.map((c) => c.name))).toEqual(new Set(Object.keys(PLAN)));
    expect(fake.maxActive).toBe(1);
    const finished = fake.calls.filter((c) => c.end !== null);
    for (let i = 1; i < finished.length; i++) expect(finished[i]!.start).toBeGreaterThanOrEqual(finished[i - 1]!.end!);

    // Never run before: all due at start, taken one after the other in sync order.
    expect(fake.calls.slice(0, 3).map((c) => [c.name, minutesAfterT0(c.start)])).toEqual([
      ["cisa-kev", 0],
      ["epss", 5],
      ["feodotracker", 25],
    ]);

    for (const [name, { interval }] of Object.entries(PLAN)) {
      const runs = runsOf(name);
      const othersMinutes = Object.entries(PLAN)
        .filter(([other]) => other !== name)
        .reduce((sum, [, p]) => sum + p.duration, 0);
      // The next run is due one interval after the previous one ended; it may
      // wait for imports of other sources in progress or queued, never longer.
      for (let i = 1; i < runs.length; i++) {
        const gap = (runs[i]!.start - runs[i - 1]!.end!) / MINUTE;
        expect(gap, `${name} run ${i}`).toBeGreaterThanOrEqual(interval);
        expect(gap, `${name} run ${i}`).toBeLessThanOrEqual(interval + othersMinutes);
      }
      // A day holds about 24 h / (interval + import time) runs.
      const cycle = interval + PLAN[name]!.duration;
      expect(runs.length, name).toBeGreaterThanOrEqual(Math.floor((24 * 60 - othersMinutes * 3) / (cycle + othersMinutes)));
      expect(runs.length, name).toBeLessThanOrEqual(Math.ceil((24 * 60) / cycle));
    }
    expect(runsOf("cisa-kev").length).toBeGreaterThan(runsOf("epss").length);
    expect(runsOf("epss").length).toBeGreaterThan(runsOf("feodotracker").length);
  });

  it("after a restart, a source is first due one interval after its recorded last run", async () => {
    const at = (minutes: number) => new Date(T0 + minutes * MINUTE).toISOString();
    await db.db
      .insertInto("sources")
      .values([
        { name: "cisa-kev", last_run_at: at(-30), last_success_at: at(-30), last_error: null, last_error_at: null, duration_ms: null, record_count: null, cursor: null, newest_record_at: null, status: "ok" },
        { name: "epss", last_run_at: at(-200), last_success_at: at(-200), last_error: null, last_error_at: null, duration_ms: null, record_count: null, cursor: null, newest_record_at: null, status: "ok" },
      ])
      .execute();
    scheduler = startScheduler({ db: db.db, config: configFor(PLAN), logger: recorder.logger });
    await started();
    await vi.advanceTimersByTimeAsync(60 * MINUTE);

    // EPSS is overdue and feodotracker never ran: both at once, in order;
    // KEV ran 30 minutes ago with a 60-minute interval: due at +30.
    expect(fake.calls.map((c) => [c.name, minutesAfterT0(c.start), minutesAfterT0(c.end)])).toEqual([
      ["epss", 0, 20],
      ["feodotracker", 20, 30],
      ["cisa-kev", 30, 35],
    ]);
  });

  it("queues runNow behind the import in progress and joins a run already queued", async () => {
    const config = configFor(PLAN);
    config.syncEnabled = false;
    scheduler = startScheduler({ db: db.db, config, logger: recorder.logger });
    const kev = scheduler.runNow("cisa-kev");
    await vi.advanceTimersByTimeAsync(MINUTE);
    const epss = [scheduler.runNow("epss"), scheduler.runNow("epss")];
    const feodo = scheduler.runNow("feodotracker" as SourceName);
    await vi.advanceTimersByTimeAsync(60 * MINUTE);
    const outcomes = await Promise.all([kev, ...epss, feodo]);
    expect(outcomes.map((o) => o.source)).toEqual(["cisa-kev", "epss", "epss", "feodotracker"]);
    expect(outcomes[1]).toBe(outcomes[2]);
    expect(fake.calls.map((c) => [c.name, minutesAfterT0(c.start), minutesAfterT0(c.end)])).toEqual([
      ["cisa-kev", 0, 5],
      ["epss", 5, 25],
      ["feodotracker", 25, 35],
    ]);
    expect(fake.maxActive).toBe(1);
  });
});
