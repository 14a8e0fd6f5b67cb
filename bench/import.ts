import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join, resolve } from "node:path";
import { parseArgs } from "node:util";
import pino from "pino";
import { openSqliteDatabase } from "../server/db/connection";
import { migrateToLatest } from "../server/db/migrate";
import { loadPipelineConfig } from "../server/pipeline/config";
import { openFeedFile } from "../server/pipeline/input";
import { DEFAULT_READ_LIMITS, type FeedFile, type ReadContext } from "../server/pipeline/run";
import { getSource, SOURCES } from "../server/pipeline/sources";
import { resolveLocations, syncSource } from "../server/pipeline/sync";

const USAGE = `Usage: npm run bench:import -- [--mirror DIR] [--source NAME]... [--db PATH]

Imports every source found in the mirror (default ../shared/data), in the
order a full sync runs them, into one fresh database, so the steps that join
sources (CVE priorities from KEV/EPSS/exploits, CWE names, indicator-CVE
links) run against the data the earlier sources stored. Each source is
measured on its own: the import runs in a child process of its own (its peak
RSS is the import's alone), and the raw limit (decompress and parse the same
files with the same reader, no database) in another.
  --source NAME  only these sources (repeatable), still in sync order; the
                 cross-source steps then see only what these stored
  --mirror DIR   directory laid out like ../shared/data
  --db PATH      keep the database here instead of in a temporary folder`;

const projectRoot = resolve(import.meta.dirname, "..");
const { values } = parseArgs({
  options: {
    mirror: { type: "string" },
    source: { type: "string", multiple: true },
    db: { type: "string" },
    raw: { type: "string" },
    import: { type: "string" },
    help: { type: "boolean", short: "h" },
  },
});
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}
const mirrorDir = resolve(values.mirror ?? process.env.THREAT_RADAR_DATA_DIR ?? resolve(projectRoot, "../shared/data"));
const config = loadPipelineConfig({});
const silent = pino({ level: "silent" });

/** Peak resident set size of this process so far, in MB. */
function peakRssMb(): number {
  return process.resourceUsage().maxRSS / 1024;
}

interface RawMeasurement {
  records: number;
  rawMs: number;
  peakRssMb: number;
}

interface ImportMeasurement {
  status: string;
  error: string | null;
  records: number;
  added: number;
  rejected: number;
  importMs: number;
  /** CPU time of the import (user + system): unlike wall time, barely affected by other load on the machine. */
  importCpuMs: number;
  peakRssMb: number;
}

/** Decompress and parse only: the same reader the import uses, without a database. */
async function rawParse(name: string): Promise<RawMeasurement> {
  const source = getSource(name)!;
  const ctx: ReadContext = {
    source: name,
    locations: resolveLocations(source, config, mirrorDir),
    signal: new AbortController().signal,
    logger: silent,
    now: new Date(),
    headers: {},
    limits: DEFAULT_READ_LIMITS,
    cursor: null,
    setCursor: () => undefined,
    plan: async () => undefined,
    async fetch(location): Promise<FeedFile> {
      return { location, path: location, name: basename(location), size: statSync(location).size, lastModified: null };
    },
    open: (file) => openFeedFile(file.path),
    release: async () => undefined,
  };
  const started = performance.now();
  let records = 0;
  for await (const _ of source.read(ctx)) records += 1;
  return { records, rawMs: performance.now() - started, peakRssMb: peakRssMb() };
}

/** One source's import into the shared database, as `npm run sync` does it. */
async function importOne(name: string, dbPath: string): Promise<ImportMeasurement> {
  const handle = openSqliteDatabase(dbPath);
  try {
    const started = performance.now();
    const cpuBefore = process.cpuUsage();
    const outcome = await syncSource(name, { db: handle.db, config, logger: silent, mirrorDir });
    const importMs = performance.now() - started;
    const cpu = process.cpuUsage(cpuBefore);
    const { added, updated, unchanged, rejected } = outcome.counts;
    return {
      status: outcome.status,
      error: outcome.error,
      records: added + updated + unchanged + rejected,
      added,
      rejected,
      importMs,
      importCpuMs: (cpu.user + cpu.system) / 1000,
      peakRssMb: peakRssMb(),
    };
  } finally {
    await handle.close();
  }
}

/** Runs this script again as `--raw NAME` or `--import NAME` and returns the JSON line it prints. */
function inChild<T>(args: string[]): T {
  const run = spawnSync(process.execPath, ["--import", "tsx", "bench/import.ts", ...args, "--mirror", mirrorDir], {
    cwd: projectRoot,
    encoding: "utf8",
    maxBuffer: 1 << 24,
  });
  const line = run.stdout.trim().split("\n").pop() ?? "";
  if (run.status !== 0 || !line.startsWith("{")) throw new Error(`${args.join(" ")} failed (exit ${run.status})\n${run.stderr}`);
  return JSON.parse(line) as T;
}

const seconds = (ms: number) => (ms / 1000).toFixed(1);

if (values.raw) {
  process.stdout.write(`${JSON.stringify(await rawParse(values.raw))}\n`);
} else if (values.import) {
  if (!values.db) throw new Error("--import needs --db");
  process.stdout.write(`${JSON.stringify(await importOne(values.import, values.db))}\n`);
} else {
  const unknown = (values.source ?? []).filter((name) => !getSource(name));
  if (unknown.length > 0) {
    console.error(`Unknown source(s): ${unknown.join(", ")}\n\n${USAGE}`);
    process.exit(2);
  }
  const names = SOURCES.filter((s) => !values.source || values.source.includes(s.name))
    .filter((s) => resolveLocations(s, config, mirrorDir).length > 0)
    .map((s) => s.name);
  const tempDir = values.db ? null : mkdtempSync(join(tmpdir(), "threat-radar-bench-"));
  const dbPath = values.db ? resolve(values.db) : join(tempDir!, "bench.sqlite");
  const setup = openSqliteDatabase(dbPath);
  await migrateToLatest(setup.db);
  await setup.close();

  const rows = [];
  let totalRecords = 0;
  let totalImportMs = 0;
  let totalRawMs = 0;
  try {
    for (const name of names) {
      const raw = inChild<RawMeasurement>(["--raw", name]);
      const imported = inChild<ImportMeasurement>(["--import", name, "--db", dbPath]);
      totalRecords += imported.records;
      totalImportMs += imported.importMs;
      totalRawMs += raw.rawMs;
      rows.push({
        source: name,
        status: imported.status,
        records: imported.records,
        rejected: imported.rejected,
        "import s": seconds(imported.importMs),
        "import cpu s": seconds(imported.importCpuMs),
        "records/s": Math.round(imported.records / (imported.importMs / 1000)),
        "raw parse s": seconds(raw.rawMs),
        "raw records/s": Math.round(raw.records / (raw.rawMs / 1000)),
        "import/raw": (imported.importMs / raw.rawMs).toFixed(1),
        "import peak RSS MB": Math.round(imported.peakRssMb),
        "raw peak RSS MB": Math.round(raw.peakRssMb),
      });
      console.error(
        `${name}: ${imported.status}, ${imported.records} records in ${seconds(imported.importMs)} s (raw parse ${seconds(raw.rawMs)} s)` +
          (imported.error ? `: ${imported.error}` : ""),
      );
    }
  } finally {
    if (tempDir) rmSync(tempDir, { recursive: true, force: true });
  }
  rows.push({
    source: "all",
    status: "",
    records: totalRecords,
    "import s": seconds(totalImportMs),
    "records/s": Math.round(totalRecords / (totalImportMs / 1000)),
    "raw parse s": seconds(totalRawMs),
    "import/raw": (totalImportMs / totalRawMs).toFixed(1),
  });
  console.log(`Mirror: ${mirrorDir}\nDatabase: ${values.db ? dbPath : "(temporary, deleted)"}; sources imported in sync order into it`);
  console.table(rows);
}
