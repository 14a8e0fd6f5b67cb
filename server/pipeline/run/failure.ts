import type { Kysely } from "kysely";
import type { Logger } from "pino";
import type { Database } from "../../db/schema";
import { emptyCounts } from "../engine/importer";
import { failureDetail, failureMessage } from "../engine/failure";
import { recordFailure } from "./records";
import type { ImportOutcome } from "./types";

/**
 * The outcome of a run that threw: the error (wrapped as an abort when the
 * run was aborted) logged and recorded with the time of the next attempt.
 * Recording may itself fail (the database is what failed); that is logged,
 * never thrown, so the caller always gets an outcome.
 */
export async function failedRun(
  error: unknown,
  run: { db: Kysely<Database>; source: string; now: Date; log: Logger; signal: AbortSignal; started: number; locationKey: string },
): Promise<ImportOutcome> {
  const { db, source, now, log, signal } = run;
  const detail = signal.aborted ? failureDetail(new Error(`aborted: ${failureMessage(failureDetail(signal.reason))}`, { cause: error })) : failureDetail(error);
  const message = failureMessage(detail);
  const durationMs = Math.round(performance.now() - run.started);
  log.error({ err: error, durationMs, hint: detail.hint }, "import failed; the previous data is unchanged");
  const retryAt = await recordFailure(db, source, now, detail, run.locationKey).catch((recordError: unknown) => {
    log.error({ err: recordError }, "could not record the failure");
    return null;
  });
  if (retryAt) log.info({ retryAt }, "next attempt");
  return { source, status: "failed", counts: emptyCounts(), durationMs, error: message, failure: detail, recordCount: null };
}
