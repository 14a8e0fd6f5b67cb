import { emptyCounts } from "./engine/importer";
import { Rejections } from "./engine/rejections";
import type { ImportStore } from "./engine/store";
import { failedRun } from "./run/failure";
import { RunFiles } from "./run/files";
import { mergeAndPublish } from "./run/merge";
import { RunProgress } from "./run/progress";
import { readContext, stageRecords, type ReadState } from "./run/read";
import { recordNotModified } from "./run/records";
import type { FeedFile, ImportOutcome, RunImportOptions } from "./run/types";
import { prefetchWholeFiles } from "./run/unchanged";

export { recordCrashedImport } from "./run/records";
export {
  DEFAULT_READ_LIMITS,
  type FeedFile,
  type ImportOutcome,
  type ImportProgress,
  type ImportStatus,
  type ReadContext,
  type ReadLimits,
  type RunImportOptions,
  type SourceReader,
} from "./run/types";

/** How much larger (relatively) a share of rejected records than at the last success still counts as the feed's usual. */
const REJECTED_SHARE_HEADROOM = 0.05;

/**
 * Whether entries a complete list no longer delivers were withdrawn, rather
 * than lost in a damaged file: true unless this run rejected a clearly
 * larger share of its records than the last successful one (a feed that
 * never had a rejection has none to spare).
 */
export function absenceMeansWithdrawn(
  run: { records: number; rejected: number },
  lastSuccess: { records_read: number | null; rejected: number; last_success_at: string | null } | undefined,
): boolean {
  // Before a first success nothing is stored that could be withdrawn.
  if (!lastSuccess?.last_success_at) return true;
  const share = (accepted: number, rejected: number) => (accepted + rejected === 0 ? 0 : rejected / (accepted + rejected));
  const usual = share(lastSuccess.records_read ?? 0, lastSuccess.rejected);
  return run.rejected === 0 || share(run.records, run.rejected) <= usual * (1 + REJECTED_SHARE_HEADROOM);
}

/** Where a source was read from, as one key: a change of location makes the source due at once. */
export function locationKey(locations: readonly string[]): string {
  return locations.join("\n");
}

/**
 * Imports one source: fetch, stage, merge, publish
 * (docs/decisions/0005-import-engine.md). Parsing writes to the staging area
 * only; the served tables change when the merge commits, together with the
 * outcome. Any failure (download, truncated gzip, unreadable feed, abort, a
 * kill) leaves them as they were; the failure itself is then recorded with
 * its cause chain and the time of the next attempt. Each step lives in
 * server/pipeline/run/.
 */
export async function runImport<R>(options: RunImportOptions<R>): Promise<ImportOutcome> {
  const { store, source, logger, now, importer } = options;
  const db = store.db;
  const signal = options.signal ?? new AbortController().signal;
  const started = performance.now();
  const log = logger.child({ source });
  const rejections = new Rejections(log, options.rejectsFile ?? null);
  let files: RunFiles | null = null;
  let staging: ReturnType<ImportStore["openStaging"]> | null = null;

  try {
    const previous = await db.selectFrom("sources").selectAll().where("name", "=", source).executeTakeFirst();
    const locations = locationKey(options.locations);
    const progress = new RunProgress(source, previous?.records_read ?? null, options.onProgress);
    files = await RunFiles.load(db, source, { progress, log, headers: options.headers ?? {}, signal });
    const state: ReadState = { cursor: previous?.cursor ?? null, newest: previous?.newest_record_at ?? null, published: null, filesRead: 0, notModified: 0 };

    let prefetched = new Map<string, FeedFile>();
    if (options.locations.every(options.readWhole ?? (() => true))) {
      // Only when the last success read these same locations: after a run from elsewhere, the data is that run's.
      const maySkip = Boolean(previous?.last_success_at) && previous?.location_key === locations;
      const fetched = await prefetchWholeFiles(files, options.locations, maySkip);
      if (fetched === null) {
        await recordNotModified(db, source, now);
        const durationMs = Math.round(performance.now() - started);
        log.info({ durationMs }, "import skipped: every file is the one last imported");
        return { source, status: "not-modified", counts: emptyCounts(), durationMs, error: null, recordCount: previous?.record_count ?? null };
      }
      prefetched = fetched;
    }

    const ctx = readContext(options, { signal, log, files, prefetched, progress, state });
    staging = store.openStaging(source);
    await staging.create(importer.staging);
    const records = await stageRecords(options, ctx, { signal, importer, staging, rejections, progress, state });
    signal.throwIfAborted();
    rejections.log();
    if (state.filesRead === 0 && state.notModified > 0) {
      await recordNotModified(db, source, now);
      log.info({ durationMs: Math.round(performance.now() - started) }, "import skipped: every file unchanged");
      return {
        source,
        status: "not-modified",
        counts: emptyCounts(),
        durationMs: Math.round(performance.now() - started),
        error: null,
        recordCount: previous?.record_count ?? null,
      };
    }

    const readMs = Math.round(performance.now() - started);
    progress.state.phase = "merge";
    progress.emit(true);
    const { counts, recordCount } = await mergeAndPublish({
      store,
      importer,
      source,
      now,
      log,
      signal,
      started,
      records,
      rejected: rejections.total,
      absenceMeansWithdrawn: absenceMeansWithdrawn({ records, rejected: rejections.total }, previous),
      state,
      locationKey: locations,
      files: files.learnt,
    });
    const durationMs = Math.round(performance.now() - started);
    log.info({ ...counts, records, durationMs, readMs, mergeMs: durationMs - readMs, recordCount }, "import finished");
    return { source, status: "ok", counts, durationMs, error: null, recordCount, records, rejections: rejections.summary() };
  } catch (error) {
    return await failedRun(error, { db, source, now, log, signal, started, locationKey: locationKey(options.locations) });
  } finally {
    await staging?.dispose();
    await files?.dispose();
  }
}
