import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Logger } from "pino";
import type { PipelineConfig } from "./config";
import { emptyCounts } from "./engine/importer";
import { acquireImportLock } from "./engine/lock";
import type { ImportStore } from "./engine/store";
import { runImport, type ImportOutcome, type ImportProgress } from "./run";
import { removeOrphanedDownloadDirs } from "./run/download-dir";
import { getSource, type SourceDefinition } from "./source-catalogue";

export interface SyncOptions {
  store: ImportStore;
  config: PipelineConfig;
  logger: Logger;
  /** Overrides config.mirrorDir (the CLI's --mirror). */
  mirrorDir?: string | null;
  now?: () => Date;
  signal?: AbortSignal;
  onProgress?: (progress: ImportProgress) => void;
  /** Every rejected record's location also goes to this file. */
  rejectsFile?: string | null;
}

/**
 * Where a source reads from: an explicit SOURCE_<NAME>_URL wins, then the
 * mirror directory, then the publisher. In a mirror, a source's file may
 * have the snapshot folder's dated name or the publisher's own
 * (docs/sync.md); a source missing from the mirror has no locations and is
 * skipped.
 */
export function resolveLocations(source: SourceDefinition, config: PipelineConfig, mirrorDir: string | null): string[] {
  const sourceConfig = config.sources[source.name];
  if (sourceConfig.overridden || !mirrorDir) return sourceConfig.locations;
  const candidates = [...source.mirrorPaths, ...(source.publisherNames ?? [])];
  return [...new Set(candidates.map((path) => resolve(join(mirrorDir, path))).filter((path) => existsSync(path)))];
}

/** Imports one source by name, wherever its configuration says it lives. The caller holds the import lock. */
export async function syncSource(name: string, options: SyncOptions): Promise<ImportOutcome> {
  const source = getSource(name);
  if (!source) throw new Error(`unknown source "${name}"`);
  const mirrorDir = options.mirrorDir ?? options.config.mirrorDir;
  const locations = resolveLocations(source, options.config, mirrorDir);
  if (locations.length === 0) {
    const detail = `not in the mirror ${mirrorDir ?? ""}`.trim();
    options.logger.info({ source: name }, `skipped: ${detail}`);
    return { source: name, status: "skipped", counts: emptyCounts(), durationMs: 0, error: null, recordCount: null, detail };
  }
  const headers: Record<string, string> = {};
  if (source.name === "nvd" && options.config.nvdApiKey) headers.apiKey = options.config.nvdApiKey;
  return runImport({
    store: options.store,
    source: source.name,
    read: source.read,
    importer: source.createImporter(),
    readWhole: source.readWhole,
    recordDate: source.recordDate,
    locations,
    logger: options.logger,
    now: (options.now ?? (() => new Date()))(),
    signal: options.signal,
    headers,
    limits: { mispEventsPerRun: options.config.mispEventsPerRun },
    onProgress: options.onProgress,
    rejectsFile: options.rejectsFile,
  });
}

/**
 * Removes what killed runs left: staging (only the lock's holder stages, so
 * any found now is a dead run's) and download folders whose process is gone.
 * A failure to remove them is logged and the import goes on.
 */
async function removeLeftovers(options: SyncOptions): Promise<void> {
  try {
    const removed = [...(await options.store.removeStagingLeftovers()), ...(await removeOrphanedDownloadDirs())];
    if (removed.length > 0) options.logger.info({ removed }, "removed what interrupted imports left");
  } catch (error) {
    options.logger.warn({ err: error }, "could not remove what interrupted imports left");
  }
}

/**
 * Imports sources one after another under the import lock (one import at a
 * time, across processes: a second one fails at once with ImportBusyError,
 * which names the running one). What the CLI and the scheduler's import
 * process run.
 */
export async function syncSources(names: readonly string[], options: SyncOptions & { onOutcome?: (outcome: ImportOutcome) => void }): Promise<ImportOutcome[]> {
  const lock = await acquireImportLock(options.store.db, options.now);
  const outcomes: ImportOutcome[] = [];
  try {
    await removeLeftovers(options);
    for (const name of names) {
      if (options.signal?.aborted) break;
      await lock.setSource(name);
      const outcome = await syncSource(name, options);
      outcomes.push(outcome);
      options.onOutcome?.(outcome);
    }
  } finally {
    await lock.release();
  }
  return outcomes;
}
