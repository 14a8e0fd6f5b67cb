import type { Kysely } from "kysely";
import type { Logger } from "pino";
import type { Database } from "../db/schema";
import type { PipelineConfig } from "./config";
import { failureDetail, failureMessage } from "./engine/failure";
import { ImportBusyError } from "./engine/lock";
import { locationKey, type ImportOutcome } from "./run";
import type { ImportRunner } from "./runner";
import { SOURCES, type SourceName } from "./source-catalogue";
import { resolveLocations } from "./sync";

export interface SchedulerOptions {
  /** Reads each source's state (the scheduler never writes; imports do, in their own process). */
  db: Kysely<Database>;
  config: PipelineConfig;
  logger: Logger;
  runner: ImportRunner;
  /** Records a failure the runner could not (an import process that died); the scheduler's only write. */
  recordCrash: (source: string, message: string, now: Date) => Promise<void>;
  /** The clock for scheduling; tests pin it. */
  now?: () => Date;
}

export interface Scheduler {
  /** Cancels the timers, stops the import in progress (it rolls back) and waits for it. */
  stop(): Promise<void>;
  /** Queues an import of `name` now (or joins the one already queued) and resolves with its outcome. */
  runNow(name: SourceName): Promise<ImportOutcome>;
  /** When each enabled source is due next. */
  nextRuns(): ReadonlyMap<SourceName, Date>;
}

interface Job {
  name: SourceName;
  waiters: Array<{ resolve: (outcome: ImportOutcome) => void; reject: (error: unknown) => void }>;
}

/** Upper bound for setTimeout (about 24.8 days); longer waits are re-armed. */
const MAX_TIMER_MS = 2 ** 31 - 1;
/** How long to wait when another process (a CLI sync) holds the import lock. */
const BUSY_RETRY_MS = 60_000;

/**
 * When a source is due: at once if it never ran or its location changed
 * since its last success (or, never having succeeded, since its last
 * attempt: an operator just set SYNC_MIRROR_DIR or SOURCE_<NAME>_URL); after
 * a failure, at the retry time the failure set (minutes, backing off);
 * otherwise one interval after its last run.
 */
export function dueAt(
  row: { last_run_at: string | null; next_attempt_at: string | null; status: string; location_key: string | null } | undefined,
  intervalMinutes: number,
  currentLocationKey: string,
): number {
  if (!row?.last_run_at) return 0;
  if (row.location_key !== null && row.location_key !== currentLocationKey) return 0;
  if (row.status === "failed" && row.next_attempt_at) return Date.parse(row.next_attempt_at);
  return Date.parse(row.last_run_at) + intervalMinutes * 60_000;
}

/**
 * Runs every enabled source when it is due, one import at a time, through
 * the runner (a child process in the server). With SYNC_ENABLED=false nothing
 * is scheduled, but runNow still works.
 */
export function startScheduler({ db, config, logger, runner, recordCrash, now = () => new Date() }: SchedulerOptions): Scheduler {
  const log = logger.child({ component: "scheduler" });
  const timers = new Map<SourceName, NodeJS.Timeout>();
  const due = new Map<SourceName, Date>();
  const queue: Job[] = [];
  const abort = new AbortController();
  let running: Promise<void> | null = null;
  let stopped = false;

  const schedule = (name: SourceName, at: number) => {
    if (stopped) return;
    clearTimeout(timers.get(name));
    const delay = at - now().getTime();
    const wait = Math.max(0, Math.min(delay, MAX_TIMER_MS));
    due.set(name, new Date(Math.max(at, now().getTime())));
    const timer = setTimeout(() => {
      if (wait < delay) schedule(name, at);
      else
        enqueue(name).catch((error: unknown) => {
          // Not failures: another importer holding the lock (drain() said so and scheduled a retry), and an
          // import cut short or never started because the server is stopping (an operator saw errors on every stop).
          if (!(error instanceof ImportBusyError) && !stopped) log.error({ err: error, source: name }, "scheduled import failed");
        });
    }, wait);
    timer.unref();
    timers.set(name, timer);
  };

  /** The next due time of a source, from what its last run recorded. */
  const reschedule = async (name: SourceName) => {
    const sourceConfig = config.sources[name];
    if (!config.syncEnabled || !sourceConfig.enabled) return;
    const row = await db.selectFrom("sources").selectAll().where("name", "=", name).executeTakeFirst();
    const source = SOURCES.find((s) => s.name === name)!;
    const locations = resolveLocations(source, config, config.mirrorDir);
    if (locations.length === 0) {
      // Not in the mirror: nothing to read until an operator adds its file, so look again one interval on.
      // (Its recorded location differs from none at all, which dueAt would take for a change, due at once, forever.)
      const at = now().getTime() + sourceConfig.intervalMinutes * 60_000;
      schedule(name, at);
      log.warn(
        { source: name, mirror: config.mirrorDir, next: new Date(at).toISOString() },
        "not in the mirror: nothing to import; looking again at the next interval",
      );
      return;
    }
    const at = dueAt(row, sourceConfig.intervalMinutes, locationKey(locations));
    schedule(name, at);
    log.info({ source: name, next: new Date(Math.max(at, now().getTime())).toISOString() }, "next import");
  };

  const drain = async () => {
    for (let job = queue.shift(); job; job = stopped ? undefined : queue.shift()) {
      try {
        const outcome = await runner(job.name, abort.signal);
        for (const waiter of job.waiters) waiter.resolve(outcome);
        await reschedule(job.name);
      } catch (error) {
        for (const waiter of job.waiters) waiter.reject(error);
        if (error instanceof ImportBusyError) {
          log.info({ source: job.name, running: error.running }, "another import is running; trying again in a minute");
          schedule(job.name, now().getTime() + BUSY_RETRY_MS);
        } else if (!stopped) {
          const message = failureMessage(failureDetail(error));
          log.error({ source: job.name, err: error }, "the import did not finish");
          await recordCrash(job.name, message, now()).catch((recordError: unknown) => log.error({ err: recordError }, "could not record the failure"));
          await reschedule(job.name);
        }
      }
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
    void Promise.all(SOURCES.map((source) => reschedule(source.name)))
      .then(() => log.info({ sources: [...timers.keys()] }, "sync scheduler started"))
      .catch((error: unknown) => log.error({ err: error }, "could not start the sync scheduler"));
  }

  return {
    runNow: enqueue,
    nextRuns: () => due,
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
