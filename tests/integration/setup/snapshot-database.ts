import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import pino from "pino";
import type { TestProject } from "vitest/node";
import { openSqliteImportStore, type ImportStore } from "../../../server/pipeline/engine/store";
import { migrateToLatest } from "../../../server/db/migrate";
import { loadPipelineConfig } from "../../../server/pipeline/config";
import { syncSources } from "../../../server/pipeline/sync";
import { DATA_DIR, PROJECT_ROOT } from "../../helpers/paths";
import { moduleClosure } from "./module-closure";

/** The clock the snapshot database was imported with; tests that depend on "now" use it too. */
export const SNAPSHOT_NOW = "2025-01-24T00:00:00Z";
export const SNAPSHOT_SOURCES = [
  "mitre-cwe",
  "cisa-kev",
  "epss",
  "cve-json5",
  "trickest-poc",
  "misp-warninglists",
  "feodotracker",
  "malwarebazaar",
  "tweetfeed",
  "signature-base",
] as const;

declare module "vitest" {
  export interface ProvidedContext {
    snapshotDatabase: string;
  }
}

function* files(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* files(path);
    else yield path;
  }
}

/**
 * Same import code and same snapshot files give the same key. The import code
 * is exactly what this module reaches through its imports (parsers, pipeline,
 * migrations, schema…), so an edit to a page, a route or a query that the
 * import never loads does not rebuild the database.
 */
function cacheKey(): string {
  const hash = createHash("sha256");
  hash.update(SNAPSHOT_SOURCES.join(",") + SNAPSHOT_NOW);
  for (const file of moduleClosure(fileURLToPath(import.meta.url))) hash.update(relative(PROJECT_ROOT, file)).update(readFileSync(file));
  for (const file of [...files(DATA_DIR)].sort()) {
    const { size, mtimeMs } = statSync(file);
    hash.update(`${relative(DATA_DIR, file)}:${size}:${mtimeMs}`);
  }
  return hash.digest("hex").slice(0, 16);
}

async function importSnapshots(path: string): Promise<void> {
  await importSnapshotsInto(openSqliteImportStore(path));
}

/** The snapshot subset, imported through the product's own sync path into `store` (closed at the end). */
export async function importSnapshotsInto(store: ImportStore): Promise<void> {
  try {
    await migrateToLatest(store.db);
    const config = loadPipelineConfig({});
    const logger = pino({ level: "silent" });
    const outcomes = await syncSources(SNAPSHOT_SOURCES, { store, config, logger, mirrorDir: DATA_DIR, now: () => new Date(SNAPSHOT_NOW) });
    for (const outcome of outcomes) {
      if (outcome.status !== "ok") throw new Error(`snapshot import of ${outcome.source} failed: ${outcome.error ?? outcome.status}`);
    }
  } finally {
    await store.close();
  }
}

/** An hour: another test run (another checkout state) may still be reading an older database. */
const STALE_AFTER_MS = 3_600_000;

/** Databases of other keys that nothing has touched for a while, and leftovers of builds that died. */
function removeStale(dir: string): void {
  for (const name of readdirSync(dir)) {
    const file = join(dir, name);
    const building = /\.building-(\d+)$/.exec(name);
    // statSync without throwing: another run's setup may remove a file between the listing and here.
    const changed = statSync(file, { throwIfNoEntry: false })?.mtimeMs ?? Date.now();
    const abandoned = building ? !isAlive(Number(building[1])) : Date.now() - changed > STALE_AFTER_MS;
    if (abandoned) rmSync(file, { force: true });
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Imports the real feed snapshots through the product's own sync path into a
 * database that the read-only page, API and browser tests share. It is cached
 * under node_modules/.cache, keyed by the import code and the snapshot files,
 * so the integration and e2e projects (and reruns) import only once.
 */
export default async function setup(project: TestProject) {
  const dir = join(PROJECT_ROOT, "node_modules/.cache/threat-radar");
  const path = join(dir, `snapshot-${cacheKey()}.sqlite`);
  if (!existsSync(path)) {
    mkdirSync(dir, { recursive: true });
    removeStale(dir);
    const building = `${path}.building-${process.pid}`;
    await importSnapshots(building);
    renameSync(building, path);
  }
  project.provide("snapshotDatabase", path);
}
