import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Kysely } from "kysely";
import type { Logger } from "pino";
import type { Database } from "../db/schema";
import type { PipelineConfig } from "./config";
import { emptyCounts } from "./importer";
import { runImport, type ImportOutcome, type ImportProgress } from "./run";
import { getSource, type SourceDefinition } from "./sources";

export interface SyncOptions {
  db: Kysely<Database>;
  config: PipelineConfig;
  logger: Logger;
  /** Overrides config.mirrorDir (the CLI's --mirror). */
  mirrorDir?: string | null;
  now?: () => Date;
  signal?: AbortSignal;
  onProgress?: (progress: ImportProgress) => void;
}

/**
 * Where a source reads from: an explicit SOURCE_<NAME>_URL wins, then the
 * mirror directory, then the publisher. A source missing from the mirror has
 * no locations and is skipped.
 */
export function resolveLocations(source: SourceDefinition, config: PipelineConfig, mirrorDir: string | null): string[] {
  const sourceConfig = config.sources[source.name];
  if (sourceConfig.overridden || !mirrorDir) return sourceConfig.locations;
  return source.mirrorPaths.map((path) => resolve(join(mirrorDir, path))).filter((path) => existsSync(path));
}

/** Imports one source by name, wherever its configuration says it lives. */
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
    db: options.db,
    source: source.name,
    read: source.read,
    importer: source.createImporter(),
    locations,
    logger: options.logger,
    now: (options.now ?? (() => new Date()))(),
    signal: options.signal,
    headers,
    limits: { mispEventsPerRun: options.config.mispEventsPerRun },
    onProgress: options.onProgress,
  });
}
