import type { Kysely } from "kysely";
import type { Logger } from "pino";
import type { Database } from "../db/schema";
import type { PipelineConfig } from "./config";
import type { ImportOutcome } from "./run";
import { SOURCES, type SourceName } from "./sources";
import { syncSource } from "./sync";

export interface SchedulerOptions {
  /**
   * The database the imports write to. With SQLite, give the scheduler a
   * connection of its own (a second openSqliteDatabase on the same file):
   * Kysely serialises one connection's queries, so an import transaction on
   * the request handlers' connection would hold their reads until it commits,
   * while with its own connection WAL lets them read throughout.
   */
  db: Kysely<Database>;
  config: PipelineConfig;
  logger: Logger;
  /** The clock for scheduling and Radar priorities; tests pin it. */
  now?: () => Date;
}

export interface Scheduler {
  /** Cancels the timers, aborts the import in progress (it rolls back) and waits for it. */
  stop(): Promise<void>;
  /** Queues an import of `name` now (or joins the one already queued) and resolves with its outcome. */
  runNow(name: SourceName): Promise<ImportOutcome>;
}

interface Job {
  name: SourceName;
  waiters: Array<{ resolve: (outcome: ImportOutcome) => void; reject: (error: unknown) => void }>;
}

/** Upper bound for setTimeout (about 24.8 days); longer waits are re-armed. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Runs every enabled source on its own interval, one import at a time. A
 * source is first due one interval after its last run as recorded in
 * `sources` (immediately if it never ran), so restarting the server does not
 * re-import everything. With SYNC_ENABLED=false nothing is scheduled, but
 * runNow still works.
 */
export function startScheduler({ db, config, logger, now = () => new Date() }: SchedulerOptions): Scheduler {
  const log = logger.child({ component: "scheduler" });
  const timers = new Map<SourceName, NodeJS.Timeout>();
  const queue: Job[] = [];
  const abort = new AbortController();
  let running: Promise<void> | null = null;
  let stopped = false;

  const schedule = (name: SourceName, delayMs: number) => {
    if (stopped) return;
    clearTimeout(timers.get(name));
    const wait = Math.max(0, Math.min(delayMs, MAX_TIMER_MS));
    const timer = setTimeout(() => {
      if (wait < delayMs) schedule(name, delayMs - wait);
      else enqueue(name).catch((error: unknown) => log.error({ err: error, source: name }, "scheduled import failed"));
    }, wait);
    timer.unref();
    timers.set(name, timer);
  };

  const drain = async () => {
    for (let job = queue.shift(); job; job = stopped ? undefined : queue.shift()) {
      try {
        const outcome = await syncSource(job.name, { db, config, logger, now, signal: abort.signal });
        for (const waiter of job.waiters) waiter.resolve(outcome);
      } catch (error) {
        for (const waiter of job.waiters) waiter.reject(error);
      }
      schedule(job.name, config.sources[job.name].intervalMinutes * 60_000);
    }
  };

  // A job queued while the previous drain was finishing is picked up by the next one.
  const kick = () => {
    if (running || stopped || queue.length === 0) return;
    running = drain().finally(() => {
      running = null;
      kick();
    });
  };

  const enqueue = (name: SourceName): Promise<ImportOutcome> =>
    new Promise((resolve, reject) => {
      if (stopped) return reject(new Error("scheduler stopped"));
      const job = queue.find((j) => j.name === name) ?? { name, waiters: [] };
      if (!queue.includes(job)) queue.push(job);
      job.waiters.push({ resolve, reject });
      kick();
    });

  if (config.syncEnabled) {
    void (async () => {
      const rows = await db.selectFrom("sources").select(["name", "last_run_at"]).execute();
      const lastRun = new Map(rows.map((row) => [row.name, row.last_run_at]));
      for (const source of SOURCES) {
        const sourceConfig = config.sources[source.name];
        if (!sourceConfig.enabled) continue;
        const last = lastRun.get(source.name);
        const due = last ? Date.parse(last) + sourceConfig.intervalMinutes * 60_000 : 0;
        schedule(source.name, due - now().getTime());
      }
      log.info({ sources: [...timers.keys()] }, "sync scheduler started");
    })().catch((error: unknown) => log.error({ err: error }, "could not start the sync scheduler"));
  }

  return {
    runNow: enqueue,
    async stop() {
      stopped = true;
      for (const timer of timers.values()) clearTimeout(timer);
      timers.clear();
      abort.abort(new Error("scheduler stopped"));
      await running;
      for (const job of queue.splice(0)) for (const waiter of job.waiters) waiter.reject(new Error("scheduler stopped"));
    },
  };
}
