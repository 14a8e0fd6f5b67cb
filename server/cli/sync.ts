import cliProgress from "cli-progress";
import pino from "pino";
import { openSqliteDatabase } from "../db/connection";
import { migrateToLatest } from "../db/migrate";
import { loadPipelineConfig, PipelineConfigError } from "../pipeline/config";
import type { ImportOutcome, ImportProgress } from "../pipeline/run";
import { SOURCES } from "../pipeline/sources";
import { syncSource } from "../pipeline/sync";
import { startCli } from "./start";

const USAGE = `Usage: npm run sync -- [--source NAME]... [--mirror DIR] [--db PATH]

Imports every enabled source (or only the named ones) into the database.
  --source NAME  a source to import; repeat for several (${SOURCES.map((s) => s.name).join(", ")})
  --mirror DIR   read every source from DIR, laid out like ../shared/data, instead of the network
  --db PATH      SQLite file (default: $DATABASE_PATH or ./data/threat-radar.sqlite)

Environment: DATABASE_PATH, LOG_LEVEL (default info), SYNC_MIRROR_DIR, NVD_API_KEY,
SYNC_MISP_EVENTS_PER_RUN, SOURCE_<NAME>_URL, SOURCE_<NAME>_ENABLED (see the README).`;

const { values, env, fail } = startCli(USAGE, {
  source: { type: "string", multiple: true },
  mirror: { type: "string" },
  db: { type: "string" },
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
const names =
  requested.length > 0 ? requested : SOURCES.filter((s) => config.sources[s.name].enabled).map((s) => s.name);

const bars = new cliProgress.MultiBar(
  {
    format: "{source} |{bar}| {percentage}% | {phase} {mb} MB | {records} records",
    hideCursor: true,
    clearOnComplete: false,
    stopOnComplete: false,
  },
  cliProgress.Presets.shades_classic,
);
// On a terminal, log lines go through the multibar so they print above the
// bars instead of through them. Without one (cron, CI, a container log) the
// bars are not drawn and the multibar would only buffer the lines, so they go
// to stderr directly.
const logger = pino(
  { level: env.LOG_LEVEL, base: undefined },
  process.stderr.isTTY
    ? { write: (line: string) => bars.log(line.endsWith("\n") ? line : `${line}\n`) }
    : process.stderr,
);

const dbPath = values.db ?? env.DATABASE_PATH;
const handle = openSqliteDatabase(dbPath);
const abort = new AbortController();
process.once("SIGINT", () => abort.abort(new Error("interrupted (SIGINT)")));
process.once("SIGTERM", () => abort.abort(new Error("terminated (SIGTERM)")));

const outcomes: ImportOutcome[] = [];
try {
  await migrateToLatest(handle.db);
  const width = Math.max(...names.map((n) => n.length));
  for (const name of names) {
    if (abort.signal.aborted) break;
    const label = name.padEnd(width);
    const bar = bars.create(1, 0, { source: label, phase: "starting", mb: "0.0", records: 0 });
    const show = (p: ImportProgress) => {
      bar.setTotal(Math.max(1, p.total));
      bar.update(Math.min(p.done, Math.max(1, p.total)), {
        source: label,
        phase: p.phase === "download" ? "downloading" : "importing",
        mb: (p.done / 1_048_576).toFixed(1),
        records: p.records,
      });
    };
    const outcome = await syncSource(name, {
      db: handle.db,
      config,
      logger,
      mirrorDir: values.mirror ?? null,
      signal: abort.signal,
      onProgress: show,
    });
    bar.update(bar.getTotal(), { source: label, phase: outcome.status });
    outcomes.push(outcome);
  }
} finally {
  bars.stop();
  await handle.close();
}

const rows = outcomes.map((o) => ({
  source: o.source,
  status: o.status,
  added: o.counts.added,
  updated: o.counts.updated,
  unchanged: o.counts.unchanged,
  rejected: o.counts.rejected,
  removed: o.counts.removed,
  seconds: (o.durationMs / 1000).toFixed(1),
  note: o.error ?? o.detail ?? "",
}));
console.log(`\nDatabase: ${dbPath}`);
console.table(rows);
if (outcomes.some((o) => o.status === "failed") || abort.signal.aborted) process.exitCode = 1;
