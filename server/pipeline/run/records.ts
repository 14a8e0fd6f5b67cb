import type { Kysely } from "kysely";
import type { Database } from "../../db/schema";
import type { Validators } from "../download";
import { retryDelayMs, failureMessage, type FailureDetail } from "../engine/failure";
import type { ImportCounts } from "../engine/importer";
import type { ImportStatus } from "./types";

/** What this run learnt about a location: the publisher's validators and the file's fingerprint. */
export interface FileState {
  validators: Validators | null;
  contentHash: string | null;
}

export interface PublishInput {
  source: string;
  now: Date;
  counts: ImportCounts;
  durationMs: number;
  recordCount: number;
  records: number;
  cursor: string | null;
  newest: string | null;
  published: string | null;
  locationKey: string;
  completeList: boolean;
  files: ReadonlyMap<string, FileState>;
}

/** The outcome of a successful run, written in the merge's own transaction. */
export async function publish(trx: Kysely<Database>, input: PublishInput): Promise<void> {
  const stamp = input.now.toISOString();
  const row = {
    last_run_at: stamp,
    last_success_at: stamp,
    last_error: null,
    last_error_detail: null,
    last_error_at: null,
    status: "ok",
    consecutive_failures: 0,
    next_attempt_at: null,
    location_key: input.locationKey,
    complete_list: input.completeList ? 1 : 0,
    ...input.counts,
    duration_ms: input.durationMs,
    record_count: input.recordCount,
    records_read: input.records,
    cursor: input.cursor,
    newest_record_at: input.newest,
    published_at: input.published,
  };
  await trx
    .insertInto("sources")
    .values({ name: input.source, runs: 1, ...row })
    .onConflict((oc) => oc.column("name").doUpdateSet((eb) => ({ ...row, runs: eb(eb.ref("sources.runs"), "+", 1) })))
    .execute();
  for (const [location, file] of input.files) {
    const values = {
      ...(file.validators ? { etag: file.validators.etag, last_modified: file.validators.lastModified } : {}),
      ...(file.contentHash ? { content_hash: file.contentHash } : {}),
    };
    if (Object.keys(values).length === 0) continue;
    await trx
      .insertInto("source_files")
      .values({ source: input.source, location, ...values })
      .onConflict((oc) => oc.columns(["source", "location"]).doUpdateSet(values))
      .execute();
  }
}

interface RunFields {
  last_run_at: string;
  status: ImportStatus;
  last_error: string | null;
  last_error_detail: string | null;
  last_error_at: string | null;
  consecutive_failures: number;
  next_attempt_at: string | null;
}

/** Records a run that stored no data, leaving the last success's counts as they were. */
async function recordRun(db: Kysely<Database>, source: string, fields: RunFields): Promise<void> {
  await db
    .insertInto("sources")
    .values({ name: source, runs: 1, ...fields })
    .onConflict((oc) => oc.column("name").doUpdateSet((eb) => ({ ...fields, runs: eb(eb.ref("sources.runs"), "+", 1) })))
    .execute();
}

/** Records a run that found every file as last imported: nothing read, nothing failing. */
export async function recordNotModified(db: Kysely<Database>, source: string, now: Date): Promise<void> {
  await recordRun(db, source, {
    last_run_at: now.toISOString(),
    status: "not-modified",
    last_error: null,
    last_error_detail: null,
    last_error_at: null,
    consecutive_failures: 0,
    next_attempt_at: null,
  });
}

/**
 * Records a failure with its cause chain and hint, and when to try again:
 * sooner than the source's interval, backing off with each failure in a row.
 * Returns that time. A source that never succeeded also keeps the locations
 * it failed at (`locationKey`; null when unknown, as after a crash), so that
 * an operator who then sets a mirror or a URL makes it due at once: the
 * air-gapped first start. Once it has succeeded, `location_key` stays the
 * locations its data came from, which the unchanged-file skip relies on.
 */
export async function recordFailure(db: Kysely<Database>, source: string, now: Date, detail: FailureDetail, locationKey: string | null): Promise<string> {
  const previous = await db.selectFrom("sources").select(["consecutive_failures"]).where("name", "=", source).executeTakeFirst();
  const failures = (previous?.consecutive_failures ?? 0) + 1;
  const retryAt = new Date(now.getTime() + retryDelayMs(failures)).toISOString();
  const stamp = now.toISOString();
  await db
    .insertInto("sources")
    .values({
      name: source,
      last_run_at: stamp,
      status: "failed",
      last_error: failureMessage(detail),
      last_error_detail: JSON.stringify(detail),
      last_error_at: stamp,
      consecutive_failures: failures,
      next_attempt_at: retryAt,
      location_key: locationKey,
      runs: 1,
      failures: 1,
    })
    .onConflict((oc) =>
      oc.column("name").doUpdateSet((eb) => ({
        location_key: eb
          .case()
          .when("sources.last_success_at", "is", null)
          .then(eb.fn.coalesce("excluded.location_key", "sources.location_key"))
          .else(eb.ref("sources.location_key"))
          .end(),
        last_run_at: stamp,
        status: "failed",
        last_error: failureMessage(detail),
        last_error_detail: JSON.stringify(detail),
        last_error_at: stamp,
        consecutive_failures: failures,
        next_attempt_at: retryAt,
        runs: eb(eb.ref("sources.runs"), "+", 1),
        failures: eb(eb.ref("sources.failures"), "+", 1),
      })),
    )
    .execute();
  return retryAt;
}

/** Records the failure of an import that could not record its own (its process was killed). */
export async function recordCrashedImport(db: Kysely<Database>, source: string, message: string, now: Date): Promise<void> {
  await recordFailure(db, source, now, { causes: [message], hint: null }, null);
}
