import { mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import type { Readable } from "node:stream";
import type { Kysely } from "kysely";
import type { Logger } from "pino";
import type { Database } from "../db/schema";
import { isSqlite } from "../db/dialect";
import { optimizeAfterImport, withImportCache } from "../db/sqlite-specific";
import { refreshCveDerived } from "./derived";
import { downloadToFile, isUrl, type Validators } from "./download";
import type { ParseResult } from "./feed";
import { emptyCounts, TouchedCves, type ImportCounts, type Importer, type WriteContext } from "./importer";
import { openFeedFile } from "./input";

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
  phase: "download" | "import";
  /** Raw bytes read (import) or received (download) so far. */
  done: number;
  /** Bytes known so far; grows as files are discovered. */
  total: number;
  records: number;
}

/** Bounds a reader keeps to, so one import stays a transaction of bounded size. */
export interface ReadLimits {
  /** MISP feed events read per import; the others wait for the next run (the cursor says where it stopped). */
  mispEventsPerRun: number;
}

/**
 * A day's TweetFeed event is a few hundred attributes, so a year of them (365
 * events) loads in one run; a large feed (CIRCL's OSINT feed lists thousands
 * of events, some with tens of thousands of attributes) loads over a few runs,
 * each one a transaction of bounded size.
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
  /**
   * Says a file has been read: a downloaded copy is deleted at once instead of
   * with the rest at the end of the import (a feed of many small files, such
   * as a MISP feed's events, then needs no more disk than its largest file).
   */
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
  recordCount: number | null;
  /** Why a source was skipped. */
  detail?: string;
}

export interface RunImportOptions<R> {
  db: Kysely<Database>;
  source: string;
  read: SourceReader<R>;
  importer: Importer<R>;
  locations: readonly string[];
  logger: Logger;
  now: Date;
  signal?: AbortSignal;
  headers?: Record<string, string>;
  limits?: ReadLimits;
  onProgress?: (progress: ImportProgress) => void;
}

/** Rejected records logged one by one before the rest go to debug level only. */
const LOGGED_REJECTS = 50;
const PROGRESS_INTERVAL_MS = 100;

function errorMessage(error: unknown): string {
  if (error instanceof Error) {
    const cause = error.cause instanceof Error ? ` (${error.cause.message})` : "";
    return `${error.message}${cause}`;
  }
  return String(error);
}

/** Gives the event loop a turn, so a server stays responsive during a long import. */
function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * Runs one source's import as a single transaction: download, parse, store,
 * refresh the derived CVE columns and record the outcome in `sources`. Any
 * failure (download, truncated gzip, unreadable feed, abort) rolls it all
 * back; the failure itself is then recorded without touching the previous
 * run's counts, cursor or validators.
 */
export async function runImport<R>(options: RunImportOptions<R>): Promise<ImportOutcome> {
  const { db, source, logger, now } = options;
  const signal = options.signal ?? new AbortController().signal;
  const started = performance.now();
  const log = logger.child({ source });
  let tempDir: string | null = null;

  try {
    const previous = await db.selectFrom("sources").selectAll().where("name", "=", source).executeTakeFirst();
    const storedValidators = new Map(
      (await db.selectFrom("source_files").selectAll().where("source", "=", source).execute()).map((row) => [
        row.location,
        { etag: row.etag, lastModified: row.last_modified } satisfies Validators,
      ]),
    );
    const newValidators = new Map<string, Validators>();
    let cursor = previous?.cursor ?? null;
    let newest = previous?.newest_record_at ?? null;
    let filesRead = 0;
    let notModified = 0;
    let downloadCount = 0;
    const progress: ImportProgress = { source, phase: "import", done: 0, total: 0, records: 0 };
    let lastEmit = 0;
    const planned = new Set<string>();
    const emit = (force = false) => {
      const t = performance.now();
      if (!options.onProgress || (!force && t - lastEmit < PROGRESS_INTERVAL_MS)) return;
      lastEmit = t;
      options.onProgress({ ...progress });
    };

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
        if (!isUrl(location)) {
          const info = await stat(location);
          return { location, path: location, name: basename(location), size: info.size, lastModified: info.mtime.toUTCString() };
        }
        tempDir ??= await mkdtemp(join(tmpdir(), `threat-radar-${source}-`));
        const name = basename(new URL(location).pathname) || "download";
        const path = join(tempDir, `${downloadCount++}-${name}`);
        const downloadStart = { done: progress.done, total: progress.total };
        progress.phase = "download";
        const result = await downloadToFile(location, path, {
          validators: fetchOptions.conditional === false ? null : storedValidators.get(location),
          headers: ctx.headers,
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
          notModified += 1;
          log.info({ location }, "not modified since the last import");
          return null;
        }
        newValidators.set(location, result.validators);
        return { location, path, name, size: result.bytes, lastModified: result.lastModified };
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

    const counts = emptyCounts();
    const touched = new TouchedCves();
    const writeCtx: WriteContext = {
      source,
      now,
      logger: log,
      counts,
      touched,
      noteRecordDate: (date) => {
        if (date && (newest === null || date > newest)) newest = date;
      },
    };

    const importAll = () => db.transaction().execute(async (trx) => {
      let batch: R[] = [];
      const flush = async () => {
        if (batch.length === 0) return;
        await options.importer.writeBatch(trx, batch, writeCtx);
        batch = [];
        await yieldToEventLoop();
      };
      for await (const result of options.read(ctx)) {
        signal.throwIfAborted();
        progress.records += 1;
        if (result.ok) {
          batch.push(result.record);
          if (batch.length >= options.importer.batchSize) await flush();
        } else {
          counts.rejected += 1;
          const level = counts.rejected <= LOGGED_REJECTS ? "warn" : "debug";
          log[level]({ location: result.location, reason: result.reason }, "rejected record");
        }
        emit();
      }
      await flush();
      signal.throwIfAborted();

      if (filesRead === 0 && notModified > 0) return "not-modified" as const;
      await options.importer.finish?.(trx, writeCtx);
      if (!touched.isEmpty) await refreshCveDerived(trx, touched.scope, now);

      const recordCount = options.importer.countRecords
        ? await options.importer.countRecords(trx, source)
        : Number(
            (
              await trx
                .selectFrom("source_records")
                .select((eb) => eb.fn.countAll<number>().as("n"))
                .where("source", "=", source)
                .executeTakeFirst()
            )?.n ?? 0,
          );
      const stamp = now.toISOString();
      const row = {
        last_run_at: stamp,
        last_success_at: stamp,
        last_error: null,
        last_error_at: null,
        status: "ok",
        ...counts,
        duration_ms: Math.round(performance.now() - started),
        record_count: recordCount,
        cursor,
        newest_record_at: newest,
      };
      await trx
        .insertInto("sources")
        .values({ name: source, ...row })
        .onConflict((oc) => oc.column("name").doUpdateSet(row))
        .execute();
      for (const [location, v] of newValidators) {
        const values = { etag: v.etag, last_modified: v.lastModified };
        await trx
          .insertInto("source_files")
          .values({ source, location, ...values })
          .onConflict((oc) => oc.columns(["source", "location"]).doUpdateSet(values))
          .execute();
      }
      return { status: "ok" as const, recordCount };
    });
    const outcome = isSqlite(db) ? await withImportCache(db, importAll) : await importAll();

    const durationMs = Math.round(performance.now() - started);
    if (outcome === "not-modified") {
      await recordRun(db, source, { last_run_at: now.toISOString(), status: "not-modified", last_error: null, last_error_at: null });
      log.info({ durationMs }, "import skipped: every file unchanged");
      return { source, status: "not-modified", counts: emptyCounts(), durationMs, error: null, recordCount: previous?.record_count ?? null };
    }
    if (isSqlite(db)) await optimizeAfterImport(db);
    emit(true);
    log.info({ ...counts, durationMs, recordCount: outcome.recordCount }, "import finished");
    return { source, status: "ok", counts, durationMs, error: null, recordCount: outcome.recordCount };
  } catch (error) {
    const message = signal.aborted ? `aborted: ${errorMessage(signal.reason)}` : errorMessage(error);
    const durationMs = Math.round(performance.now() - started);
    log.error({ err: error, durationMs }, "import failed; the previous data is unchanged");
    const stamp = now.toISOString();
    await recordRun(db, source, { last_run_at: stamp, status: "failed", last_error: message, last_error_at: stamp }).catch(
      (recordError: unknown) => log.error({ err: recordError }, "could not record the failure"),
    );
    return { source, status: "failed", counts: emptyCounts(), durationMs, error: message, recordCount: null };
  } finally {
    if (tempDir) await rm(tempDir, { recursive: true, force: true });
  }
}

interface RunFields {
  last_run_at: string;
  status: ImportStatus;
  last_error: string | null;
  last_error_at: string | null;
}

/** Records a run that stored no data, leaving the last success's counts as they were. */
async function recordRun(db: Kysely<Database>, source: string, fields: RunFields): Promise<void> {
  await db
    .insertInto("sources")
    .values({ name: source, ...fields })
    .onConflict((oc) => oc.column("name").doUpdateSet(fields))
    .execute();
}
