import { statSync } from "node:fs";
import { resolve } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import pino from "pino";
import { migrateToLatest } from "../db/migrate";
import { loadPipelineConfig, PipelineConfigError } from "../pipeline/config";
import { ImportBusyError } from "../pipeline/engine/lock";
import { databaseTarget, describeTarget } from "../db/target";
import { openImportStore } from "../pipeline/engine/store";
import type { ImportOutcome } from "../pipeline/run";
import { SOURCES } from "../pipeline/source-catalogue";
import { syncSources } from "../pipeline/sync";
import { createProgressDisplay } from "./progress";
import { startCli } from "./start";

const USAGE = `Usage: npm run sync -- [--source NAME]... [--mirror DIR] [--db PATH] [--wait] [--rejects FILE]

Imports every enabled source (or only the named ones) into the database.
  --source NAME   a source to import; repeat for several (${SOURCES.map((s) => s.name).join(", ")})
  --mirror DIR    read every source from DIR instead of the network (docs/sync.md lists the file names)
  --db PATH       SQLite file (default: $DATABASE_URL if set, else $DATABASE_PATH or ./data/threat-radar.sqlite)
  --wait          when another import is running, wait for it instead of exiting with code ${3}
  --rejects FILE  also write every rejected record's location and reason to FILE

Exit codes: 0 imported (or nothing to do), 1 a source failed, 2 bad usage or configuration,
3 another import is running.

Environment: DATABASE_URL, DATABASE_PATH, LOG_LEVEL (default info), SYNC_MIRROR_DIR, NVD_API_KEY,
SYNC_MISP_EVENTS_PER_RUN, SOURCE_<NAME>_URL, SOURCE_<NAME>_ENABLED, HTTPS_PROXY (see the README).`;

const BUSY_EXIT_CODE = 3;

const { values, env, fail } = startCli(USAGE, {
  source: { type: "string", multiple: true },
  mirror: { type: "string" },
  db: { type: "string" },
  wait: { type: "boolean" },
  rejects: { type: "string" },
});

const config = (() => {
  try {
    return loadPipelineConfig(process.env);
  } catch (error) {
    return fail(error instanceof PipelineConfigError ? error.message : String(error));
  }
})();

const requested = values.source ?? [];
const unknown = requested.filter((name) => !SOURCES.some((s) => s.name === name));
if (unknown.length > 0) fail(`Unknown source(s): ${unknown.join(", ")}`);
const names = requested.length > 0 ? requested : SOURCES.filter((s) => config.sources[s.name].enabled).map((s) => s.name);
const mirrorDir = values.mirror ?? config.mirrorDir;
if (mirrorDir) {
  const isDirectory = (() => {
    try {
      return statSync(mirrorDir).isDirectory();
    } catch {
      return false;
    }
  })();
  if (!isDirectory) fail(`The mirror ${resolve(mirrorDir)} is not a directory.`);
}

const display = createProgressDisplay(names);
const logger = pino({ level: env.LOG_LEVEL, base: undefined }, display.logStream);

const target = values.db ? databaseTarget({ ...env, DATABASE_PATH: values.db, DATABASE_URL: undefined }) : databaseTarget(env);
const store = openImportStore(target);
const abort = new AbortController();
process.once("SIGINT", () => abort.abort(new Error("interrupted (SIGINT)")));
process.once("SIGTERM", () => abort.abort(new Error("terminated (SIGTERM)")));

let outcomes: ImportOutcome[] = [];
let busy: ImportBusyError | null = null;
try {
  await migrateToLatest(store.db);
  for (;;) {
    try {
      outcomes = await syncSources(names, {
        store,
        config,
        logger,
        mirrorDir: values.mirror ?? null,
        signal: abort.signal,
        rejectsFile: values.rejects ?? null,
        onProgress: display.progress,
        onOutcome: display.done,
      });
      break;
    } catch (error) {
      if (!(error instanceof ImportBusyError) || !values.wait || abort.signal.aborted) {
        if (error instanceof ImportBusyError) busy = error;
        else throw error;
        break;
      }
      display.note(`waiting: ${error.message}`);
      await delay(5_000, undefined, { signal: abort.signal }).catch(() => undefined);
    }
  }
} finally {
  display.stop();
  await store.close();
}

if (busy) {
  console.error(`Not importing: ${busy.message}. Run again when it has finished, or pass --wait.`);
  process.exit(BUSY_EXIT_CODE);
}

console.log(`\nDatabase: ${describeTarget(target)}`);
console.table(
  outcomes.map((o) => ({
    source: o.source,
    status: o.status,
    records: o.records ?? 0,
    added: o.counts.added,
    updated: o.counts.updated,
    unchanged: o.counts.unchanged,
    rejected: o.counts.rejected,
    removed: o.counts.removed,
    seconds: (o.durationMs / 1000).toFixed(1),
    note: o.error ?? o.detail ?? "",
  })),
);
for (const outcome of outcomes) {
  for (const { reason, count, examples } of outcome.rejections ?? []) {
    console.log(`${outcome.source}: ${count} rejected, ${reason} (e.g. ${examples.slice(0, 2).join("; ")})`);
  }
  if (outcome.failure?.hint) console.log(`${outcome.source}: ${outcome.failure.hint}`);
}
if (outcomes.some((o) => o.status === "failed") || abort.signal.aborted) process.exitCode = 1;
