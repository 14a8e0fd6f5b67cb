import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import type { TestProject } from "vitest/node";
import { openSqliteDatabase } from "../../../server/db/connection";
import { migrateToLatest } from "../../../server/db/migrate";
import { loadPipelineConfig } from "../../../server/pipeline/config";
import { syncSource } from "../../../server/pipeline/sync";
import { DATA_DIR } from "../../helpers/paths";

/** The clock the snapshot database was imported with; tests that depend on "now" use it too. */
export const SNAPSHOT_NOW = "2025-01-24T00:00:00Z";
export const SNAPSHOT_SOURCES = ["mitre-cwe", "cisa-kev", "epss", "cve-json5", "trickest-poc"] as const;

declare module "vitest" {
  export interface ProvidedContext {
    snapshotDatabase: string;
  }
}

/**
 * Imports the real feed snapshots once per test run, through the product's
 * own sync path, into a database the read-only page and API tests share.
 */
export default async function setup(project: TestProject) {
  const dir = mkdtempSync(join(tmpdir(), "threat-radar-snapshot-"));
  const path = join(dir, "snapshot.sqlite");
  const database = openSqliteDatabase(path);
  await migrateToLatest(database.db);
  const config = loadPipelineConfig({});
  const logger = pino({ level: "silent" });
  for (const name of SNAPSHOT_SOURCES) {
    const outcome = await syncSource(name, { db: database.db, config, logger, mirrorDir: DATA_DIR, now: () => new Date(SNAPSHOT_NOW) });
    if (outcome.status !== "ok") throw new Error(`snapshot import of ${name} failed: ${outcome.error ?? outcome.status}`);
  }
  await database.close();
  project.provide("snapshotDatabase", path);
  return () => rmSync(dir, { recursive: true, force: true });
}
