import { stat } from "node:fs/promises";
import type { Logger } from "pino";
import { isUrl } from "../download";
import type { Importer } from "../engine/importer";
import type { Rejections } from "../engine/rejections";
import type { StagingArea } from "../engine/staging";
import { openFeedFile } from "../../feeds/toolkit/file";
import type { RunFiles } from "./files";
import type { RunProgress } from "./progress";
import { DEFAULT_READ_LIMITS, type FeedFile, type ReadContext, type RunImportOptions } from "./types";

/** What reading a source leaves for the merge and the outcome. */
export interface ReadState {
  cursor: string | null;
  newest: string | null;
  /** The latest date the publisher stamped on a file this run read. */
  published: string | null;
  /** Files opened for reading. */
  filesRead: number;
  /** Fetches the publisher answered 304 Not Modified. */
  notModified: number;
}

/** The context a source's reader runs in: fetches go through the run's files (prefetched ones first), reads count towards progress. */
export function readContext<R>(
  options: RunImportOptions<R>,
  run: { signal: AbortSignal; log: Logger; files: RunFiles; prefetched: ReadonlyMap<string, FeedFile>; progress: RunProgress; state: ReadState },
): ReadContext {
  const { files, prefetched, progress, state } = run;
  const planned = new Set<string>();
  return {
    source: options.source,
    locations: options.locations,
    signal: run.signal,
    logger: run.log,
    now: options.now,
    headers: options.headers ?? {},
    limits: options.limits ?? DEFAULT_READ_LIMITS,
    cursor: state.cursor,
    setCursor: (value) => {
      state.cursor = value;
    },
    setPublished: (value) => {
      if (state.published === null || value > state.published) state.published = value;
    },
    async plan(paths) {
      for (const path of paths) {
        if (planned.has(path)) continue;
        planned.add(path);
        progress.state.total += (await stat(path)).size;
      }
      progress.emit();
    },
    async fetch(location, fetchOptions = {}) {
      const ready = prefetched.get(location);
      if (ready) return ready;
      if (!isUrl(location)) return files.local(location);
      const file = await files.download(location, fetchOptions.conditional !== false);
      if (file === null) state.notModified += 1;
      return file;
    },
    async open(file) {
      state.filesRead += 1;
      if (!planned.has(file.path)) progress.state.total += file.size;
      return openFeedFile(file.path, (bytes) => {
        progress.state.done += bytes;
        progress.emit();
      });
    },
    async release(file) {
      await files.release(file);
    },
  };
}

/** Runs the reader and stages every record it parses; rejections are counted, not staged. Returns the number of records staged. */
export async function stageRecords<R>(
  options: RunImportOptions<R>,
  ctx: ReadContext,
  run: { signal: AbortSignal; importer: Importer<R>; staging: StagingArea; rejections: Rejections; progress: RunProgress; state: ReadState },
): Promise<number> {
  const { signal, importer, staging, rejections, progress, state } = run;
  let records = 0;
  for await (const result of options.read(ctx)) {
    signal.throwIfAborted();
    progress.state.records += 1;
    if (result.ok) {
      records += 1;
      importer.stage(result.record, staging, records);
      const backlog = staging.backlog();
      if (backlog) await backlog;
      const date = options.recordDate?.(result.record) ?? null;
      if (date && (state.newest === null || date > state.newest)) state.newest = date;
    } else {
      rejections.add(result.location, result.reason);
    }
    progress.emit();
  }
  await staging.flush();
  return records;
}
