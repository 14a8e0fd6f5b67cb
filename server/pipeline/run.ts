import { mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import type { Readable } from "node:stream";
import type { Kysely } from "kysely";
import type { Logger } from "pino";
import type { Database } from "../db/schema";
import { downloadToFile, isUrl, type Validators } from "./download";
import { retryDelayMs, failureDetail, failureMessage, type FailureDetail } from "./engine/failure";
import { fingerprintFile, fingerprintLocation } from "./engine/fingerprint";
import { emptyCounts, type ImportCounts, type Importer, type MergeContext } from "./engine/importer";
import { Rejections } from "./engine/rejections";
import type { ImportStore } from "./engine/store";
import { openFeedFile } from "../feeds/toolkit/file";
import type { ParseResult } from "../feeds/toolkit/result";

/** A location made local: a path on disk, and what the publisher said about it. */
export interface FeedFile {
  location: string;
  path: string;
  /** Short name for log locations ("vulnrichment_cve5_2024.jsonl.gz"). */
  name: string;
  size: number;
  /** HTTP Last-Modified, or the file's mtime for local paths. */
  lastModified: string | null;
}

export interface ImportProgress {
  source: string;
  phase: "download" | "import" | "merge";
  /** Raw bytes read (import) or received (download) so far. */
  done: number;
  /** Bytes known so far; grows as files are discovered. */
  total: number;
  records: number;
  /** Records the last successful run read: what `records` counts towards, when known. */
  expectedRecords: number | null;
}

/** Bounds a reader keeps to, so one import stays of bounded size. */
export interface ReadLimits {
  /** MISP feed events read per import; the others wait for the next run (the cursor says where it stopped). */
  mispEventsPerRun: number;
}

/**
 * A day's TweetFeed event is a few hundred attributes, so a year of them (365
 * events) loads in one run; a large feed (CIRCL's OSINT feed lists thousands
 * of events, some with tens of thousands of attributes) loads over a few runs.
 */
export const DEFAULT_READ_LIMITS: ReadLimits = { mispEventsPerRun: 1_000 };

/** What a source's reader gets: its locations and the means to fetch and open them. */
export interface ReadContext {
  source: string;
  locations: readonly string[];
  signal: AbortSignal;
  logger: Logger;
  now: Date;
  /** Headers for requests to this source's publisher (e.g. NVD's apiKey). */
  headers: Record<string, string>;
  limits: ReadLimits;
  /** The source's position after its last successful import. */
  cursor: string | null;
  setCursor(value: string | null): void;
  /**
   * Makes a location local. URLs are downloaded, conditionally unless told
   * otherwise: null means the publisher answered 304 Not Modified.
   */
  fetch(location: string, options?: { conditional?: boolean }): Promise<FeedFile | null>;
  /** Announces local files that will be read, so progress has its total early. */
  plan(paths: readonly string[]): Promise<void>;
  /** Streams a file, gunzipped when needed, counting progress. */
  open(file: FeedFile): Promise<Readable>;
  /** Says a file has been read: a downloaded copy is deleted at once instead of at the end of the import. */
  release(file: FeedFile): Promise<void>;
}

export type SourceReader<R> = (ctx: ReadContext) => AsyncIterable<ParseResult<R>>;

/** skipped: the source had nothing to read from (e.g. absent from a mirror); no run is recorded. */
export type ImportStatus = "ok" | "not-modified" | "failed" | "skipped";

export interface ImportOutcome {
  source: string;
  status: ImportStatus;
  counts: ImportCounts;
  durationMs: number;
  error: string | null;
  failure?: FailureDetail;
  recordCount: number | null;
  /** Records the parsers read. */
  records?: number;
  /** Rejections per reason (a few example locations each). */
  rejections?: Array<{ reason: string; count: number; examples: string[] }>;
  /** Why a source was skipped. */
  detail?: string;
}

export interface RunImportOptions<R> {
  store: ImportStore;
  source: string;
  read: SourceReader<R>;
  importer: Importer<R>;
  locations: readonly string[];
  /**
   * Whether a location is read whole on every run (a file, a directory, a
   * tarball), so that an unchanged one means nothing to do; not a delta log,
   * an API or a live MISP feed, whose reader follows a cursor.
   */
  readWhole?: (location: string) => boolean;
  /** A record's publication date, for the source's freshness. */
  recordDate?: (record: R) => string | null;
  logger: Logger;
  now: Date;
  signal?: AbortSignal;
  headers?: Record<string, string>;
  limits?: ReadLimits;
  onProgress?: (progress: ImportProgress) => void;
  /** Every rejected location also goes to this file. */
  rejectsFile?: string | null;
}

const PROGRESS_INTERVAL_MS = 100;

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
 * its cause chain and the time of the next attempt.
 */
export async function runImport<R>(options: RunImportOptions<R>): Promise<ImportOutcome> {
  const { store, source, logger, now, importer } = options;
  const db = store.db;
  const signal = options.signal ?? new AbortController().signal;
  const started = performance.now();
  const log = logger.child({ source });
  const rejections = new Rejections(log, options.rejectsFile ?? null);
  let tempDir: string | null = null;
  let staging: ReturnType<ImportStore["openStaging"]> | null = null;

  try {
    const previous = await db.selectFrom("sources").selectAll().where("name", "=", source).executeTakeFirst();
    const locations = locationKey(options.locations);
    const storedFiles = new Map((await db.selectFrom("source_files").selectAll().where("source", "=", source).execute()).map((row) => [row.location, row]));
    const newFiles = new Map<string, { validators: Validators | null; contentHash: string | null }>();
    let cursor = previous?.cursor ?? null;
    let newest = previous?.newest_record_at ?? null;
    let filesRead = 0;
    let notModified = 0;
    let downloadCount = 0;
    const progress: ImportProgress = { source, phase: "import", done: 0, total: 0, records: 0, expectedRecords: previous?.records_read ?? null };
    let lastEmit = 0;
    const planned = new Set<string>();
    const emit = (force = false) => {
      const t = performance.now();
      if (!options.onProgress || (!force && t - lastEmit < PROGRESS_INTERVAL_MS)) return;
      lastEmit = t;
      options.onProgress({ ...progress });
    };

    const download = async (location: string, conditional: boolean): Promise<FeedFile | null> => {
      tempDir ??= await mkdtemp(join(tmpdir(), `threat-radar-${source}-`));
      const name = basename(new URL(location).pathname) || "download";
      const path = join(tempDir, `${downloadCount++}-${name}`);
      const downloadStart = { done: progress.done, total: progress.total };
      progress.phase = "download";
      const stored = storedFiles.get(location);
      const result = await downloadToFile(location, path, {
        validators: conditional && stored ? { etag: stored.etag, lastModified: stored.last_modified } : null,
        headers: options.headers ?? {},
        signal,
        onLength: (bytes) => {
          progress.total = downloadStart.total + bytes;
        },
        onBytes: (bytes) => {
          progress.done += bytes;
          emit();
        },
      });
      progress.phase = "import";
      progress.done = downloadStart.done;
      progress.total = downloadStart.total;
      if (result.notModified) {
        log.info({ location }, "not modified since the last import");
        return null;
      }
      newFiles.set(location, { validators: result.validators, contentHash: newFiles.get(location)?.contentHash ?? null });
      return { location, path, name, size: result.bytes, lastModified: result.lastModified };
    };
    const localFile = async (location: string): Promise<FeedFile> => {
      const info = await stat(location);
      return { location, path: location, name: basename(location), size: info.size, lastModified: info.mtime.toUTCString() };
    };

    // Whole files first: when none changed since the last successful import, nothing is read.
    const prefetched = new Map<string, FeedFile>();
    const readWhole = options.readWhole ?? (() => true);
    if (options.locations.every(readWhole)) {
      const unchanged: string[] = [];
      for (const location of options.locations) {
        const file = isUrl(location) ? await download(location, true) : null;
        const hash = isUrl(location) ? (file ? await fingerprintFile(file.path) : null) : await fingerprintLocation(location);
        if (file) prefetched.set(location, file);
        const same = hash === null || hash === storedFiles.get(location)?.content_hash;
        if (same) unchanged.push(location);
        newFiles.set(location, {
          validators: newFiles.get(location)?.validators ?? null,
          contentHash: hash ?? storedFiles.get(location)?.content_hash ?? null,
        });
      }
      // Only when the last success read these same locations: after a run from elsewhere, the data is that run's.
      const sameLocations = previous?.location_key === locations;
      if (unchanged.length === options.locations.length && previous?.last_success_at && sameLocations) {
        await recordRun(db, source, {
          last_run_at: now.toISOString(),
          status: "not-modified",
          last_error: null,
          last_error_detail: null,
          last_error_at: null,
          consecutive_failures: 0,
          next_attempt_at: null,
        });
        const durationMs = Math.round(performance.now() - started);
        log.info({ durationMs }, "import skipped: every file is the one last imported");
        return { source, status: "not-modified", counts: emptyCounts(), durationMs, error: null, recordCount: previous.record_count };
      }
      // Something changed: the files the publisher answered 304 for are needed again, whole.
      for (const location of unchanged)
        if (isUrl(location) && !prefetched.has(location)) {
          const file = await download(location, false);
          if (file) prefetched.set(location, file);
        }
    }

    const ctx: ReadContext = {
      source,
      locations: options.locations,
      signal,
      logger: log,
      now,
      headers: options.headers ?? {},
      limits: options.limits ?? DEFAULT_READ_LIMITS,
      cursor,
      setCursor: (value) => {
        cursor = value;
      },
      async plan(paths) {
        for (const path of paths) {
          if (planned.has(path)) continue;
          planned.add(path);
          progress.total += (await stat(path)).size;
        }
        emit();
      },
      async fetch(location, fetchOptions = {}) {
        const ready = prefetched.get(location);
        if (ready) return ready;
        if (!isUrl(location)) return localFile(location);
        const file = await download(location, fetchOptions.conditional !== false);
        if (file === null) notModified += 1;
        return file;
      },
      async open(file) {
        filesRead += 1;
        if (!planned.has(file.path)) progress.total += file.size;
        return openFeedFile(file.path, (bytes) => {
          progress.done += bytes;
          emit();
        });
      },
      async release(file) {
        if (tempDir !== null && file.path !== file.location && file.path.startsWith(tempDir)) await rm(file.path, { force: true });
      },
    };

    staging = store.openStaging(source);
    await staging.create(importer.staging);
    let records = 0;
    for await (const result of options.read(ctx)) {
      signal.throwIfAborted();
      progress.records += 1;
      if (result.ok) {
        records += 1;
        importer.stage(result.record, staging, records);
        const backlog = staging.backlog();
        if (backlog) await backlog;
        const date = options.recordDate?.(result.record) ?? null;
        if (date && (newest === null || date > newest)) newest = date;
      } else {
        rejections.add(result.location, result.reason);
      }
      emit();
    }
    await staging.flush();
    signal.throwIfAborted();
    rejections.log();
    if (filesRead === 0 && notModified > 0) {
      await recordRun(db, source, {
        last_run_at: now.toISOString(),
        status: "not-modified",
        last_error: null,
        last_error_detail: null,
        last_error_at: null,
        consecutive_failures: 0,
        next_attempt_at: null,
      });
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
    progress.phase = "merge";
    emit(true);
    const counts = emptyCounts();
    counts.rejected = rejections.total;
    let recordCount = 0;
    let committed = false;
    const mergeCtx: MergeContext = {
      source,
      now,
      stamp: now.toISOString(),
      logger: log,
      store,
      counts,
      records,
      absenceMeansWithdrawn: absenceMeansWithdrawn({ records, rejected: rejections.total }, previous),
      async commit(work) {
        if (committed) throw new Error("an importer's merge commits once");
        committed = true;
        await db.transaction().execute(async (trx) => {
          await work(trx);
          signal.throwIfAborted();
          recordCount = await importer.countRecords(trx, source);
          await publish(trx, {
            source,
            now,
            counts,
            durationMs: Math.round(performance.now() - started),
            recordCount,
            records,
            cursor,
            newest,
            locationKey: locations,
            completeList: importer.completeList ?? false,
            files: newFiles,
          });
        });
      },
    };
    await importer.merge(mergeCtx);
    if (!committed) throw new Error(`the ${source} importer's merge did not commit`);
    await store.dialect.analyze(db);
    const durationMs = Math.round(performance.now() - started);
    log.info({ ...counts, records, durationMs, readMs, mergeMs: durationMs - readMs, recordCount }, "import finished");
    return { source, status: "ok", counts, durationMs, error: null, recordCount, records, rejections: rejections.summary() };
  } catch (error) {
    const detail = signal.aborted
      ? failureDetail(new Error(`aborted: ${failureMessage(failureDetail(signal.reason))}`, { cause: error }))
      : failureDetail(error);
    const message = failureMessage(detail);
    const durationMs = Math.round(performance.now() - started);
    log.error({ err: error, durationMs, hint: detail.hint }, "import failed; the previous data is unchanged");
    const retryAt = await recordFailure(db, source, now, detail).catch((recordError: unknown) => {
      log.error({ err: recordError }, "could not record the failure");
      return null;
    });
    if (retryAt) log.info({ retryAt }, "next attempt");
    return { source, status: "failed", counts: emptyCounts(), durationMs, error: message, failure: detail, recordCount: null };
  } finally {
    await staging?.dispose();
    if (tempDir) await rm(tempDir, { recursive: true, force: true });
  }
}

interface PublishInput {
  source: string;
  now: Date;
  counts: ImportCounts;
  durationMs: number;
  recordCount: number;
  records: number;
  cursor: string | null;
  newest: string | null;
  locationKey: string;
  completeList: boolean;
  files: ReadonlyMap<string, { validators: Validators | null; contentHash: string | null }>;
}

/** The outcome of a successful run, written in the merge's own transaction. */
async function publish(trx: Kysely<Database>, input: PublishInput): Promise<void> {
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

/**
 * Records a failure with its cause chain and hint, and when to try again:
 * sooner than the source's interval, backing off with each failure in a row.
 * Returns that time.
 */
async function recordFailure(db: Kysely<Database>, source: string, now: Date, detail: FailureDetail): Promise<string> {
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
      runs: 1,
      failures: 1,
    })
    .onConflict((oc) =>
      oc.column("name").doUpdateSet((eb) => ({
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
  await recordFailure(db, source, now, { causes: [message], hint: null });
}
