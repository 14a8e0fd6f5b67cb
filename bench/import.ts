import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import pino from "pino";
import { sizeReport } from "./db-size";
import { measureServing, REQUESTS_PER_SECOND, SERVING_PATHS, type ServingFigures } from "./import-serving";
import { readBuildId, startProductionServer } from "./load/servers";
import { migrateToLatest } from "../server/db/migrate";
import { loadPipelineConfig } from "../server/pipeline/config";
import { openSqliteImportStore } from "../server/pipeline/engine/store";
import { readContext } from "./local-read-context";
import { IMPORT_HEAP_FLAGS } from "../server/pipeline/import-heap";
import { getSource, SOURCES } from "../server/pipeline/source-catalogue";
import { resolveLocations, syncSources } from "../server/pipeline/sync";

const USAGE = `Usage: npm run bench:import -- [--mirror DIR] [--source NAME]... [--db PATH]

Imports every source found in the mirror (default ../shared/data), in the
order a full sync runs them, into one fresh database, with the import engine
\`npm run sync\` uses (an import store, syncSources under the import lock), so
the steps that join sources (CVE priorities from KEV/EPSS/exploits, CWE
names, indicator-CVE links) run against the data the earlier sources stored.
Each source is measured on its own: the import runs in a child process of
its own (its peak RSS is the import's alone) while this process samples the
size of the WAL and of the source's staging file; the ceiling (decompress
and parse the same files with the same reader, no database) runs in another
child, in the same run, so both see the same machine load.
  --source NAME  only these sources (repeatable), still in sync order; the
                 cross-source steps then see only what these stored
  --mirror DIR   directory laid out like ../shared/data
  --db PATH      keep the database here instead of in a temporary folder
                 (it must not exist yet, or hold only earlier runs' sources)
  --serve NAME   while NAME imports (default maltrail, the largest), the
                 production build (npm run build first) serves the same
                 database and a few pages are requested (4 connections,
                 20 requests/s in all, so the import keeps its CPU):
                 p95 during the import against 10 s idle just before it
                 (after a 10 s warm-up).
                 "none" skips this (it is also skipped when there is no build)

After the first import of every source, each is imported again from the
same files: the unchanged re-import's time against the first import's.`;

const projectRoot = resolve(import.meta.dirname, "..");
const { values } = parseArgs({
  options: {
    mirror: { type: "string" },
    source: { type: "string", multiple: true },
    db: { type: "string" },
    serve: { type: "string" },
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
/** How often the parent samples file sizes while a child imports. */
const SAMPLE_MS = 100;

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
  const ctx = readContext(name, resolveLocations(source, config, mirrorDir));

  const started = performance.now();
  let records = 0;
  for await (const _ of source.read(ctx)) records += 1;
  return { records, rawMs: performance.now() - started, peakRssMb: peakRssMb() };
}

/** Seconds of idle serving measured before the import the server is measured beside. */
const IDLE_SECONDS = 10;
const WARM_UP_SECONDS = 10;

function hasBuild(): boolean {
  try {
    readBuildId();
    return true;
  } catch {
    return false;
  }
}

/** One source's import into the shared database, as `npm run sync` does it: an import store and syncSources. */
async function importOne(name: string, dbPath: string): Promise<ImportMeasurement> {
  const store = openSqliteImportStore(dbPath);
  try {
    const started = performance.now();
    const cpuBefore = process.cpuUsage();
    const [outcome] = await syncSources([name], { store, config, logger: silent, mirrorDir });
    const importMs = performance.now() - started;
    const cpu = process.cpuUsage(cpuBefore);
    if (!outcome) throw new Error(`${name}: no outcome`);
    const { added, updated, unchanged, rejected } = outcome.counts;
    return {
      status: outcome.status,
      error: outcome.error,
      records: outcome.records ?? added + updated + unchanged + rejected,
      added,
      rejected,
      importMs,
      importCpuMs: (cpu.user + cpu.system) / 1000,
      peakRssMb: peakRssMb(),
    };
  } finally {
    await store.close();
  }
}

const fileSize = (path: string) => (existsSync(path) ? statSync(path).size : 0);

/**
 * Runs this script again as `--raw NAME` or `--import NAME` and returns the
 * JSON line it prints, with the largest size each watched file reached while
 * it ran (sampled every SAMPLE_MS, so a peak shorter than that can be missed).
 */
async function inChild<T>(args: string[], watch: readonly string[] = []): Promise<{ result: T; peaks: number[] }> {
  // An import child runs with the import process's heap cap, as `npm run sync` and the scheduler do.
  const heap = args.includes("--import") ? IMPORT_HEAP_FLAGS : [];
  const child = spawn(process.execPath, [...heap, "--import", "tsx", "bench/import.ts", ...args, "--mirror", mirrorDir], {
    cwd: projectRoot,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (text: string) => (stdout += text));
  child.stderr.setEncoding("utf8").on("data", (text: string) => (stderr += text));
  const peaks = watch.map(() => 0);
  const sample = () => watch.forEach((path, i) => (peaks[i] = Math.max(peaks[i]!, fileSize(path))));
  const sampler = setInterval(sample, SAMPLE_MS);
  const code = await new Promise<number | null>((done) => child.once("close", done));
  clearInterval(sampler);
  sample();
  const line = stdout.trim().split("\n").pop() ?? "";
  if (code !== 0 || !line.startsWith("{")) throw new Error(`${args.join(" ")} failed (exit ${code})\n${stderr}`);
  return { result: JSON.parse(line) as T, peaks };
}

const seconds = (ms: number) => (ms / 1000).toFixed(1);
const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);

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
  if (names.length === 0) {
    console.error(`No source to import in the mirror ${mirrorDir}.\n\n${USAGE}`);
    process.exit(2);
  }
  const tempDir = values.db ? null : mkdtempSync(join(tmpdir(), "threat-radar-bench-"));
  const dbPath = values.db ? resolve(values.db) : join(tempDir!, "bench.sqlite");
  const setup = openSqliteImportStore(dbPath);
  await migrateToLatest(setup.db);
  await setup.close();

  const serveSource = values.serve === "none" || !hasBuild() ? null : (values.serve ?? "maltrail");
  let serving: { source: string; idle: ServingFigures; during: ServingFigures } | null = null;
  const rows = [];
  const reimports: Array<Record<string, string | number>> = [];
  let totalReimportMs = 0;
  let size!: ReturnType<typeof sizeReport>;
  let totalRecords = 0;
  let totalImportMs = 0;
  let totalRawMs = 0;
  let peakWal = 0;
  try {
    for (const name of names) {
      const { result: raw } = await inChild<RawMeasurement>(["--raw", name]);
      const importing = () => inChild<ImportMeasurement>(["--import", name, "--db", dbPath], [`${dbPath}-wal`, `${dbPath}.staging-${name}`]);
      let run: Awaited<ReturnType<typeof importing>>;
      if (name === serveSource) {
        const server = await startProductionServer(dbPath);
        try {
          // A server just started renders cold (JIT, page cache, response cache): warm it first.
          await measureServing(server.url, { seconds: WARM_UP_SECONDS });
          const idle = await measureServing(server.url, { seconds: IDLE_SECONDS });
          const running = importing();
          const during = await measureServing(server.url, { done: running });
          run = await running;
          serving = { source: name, idle, during };
        } finally {
          await server.stop();
        }
      } else {
        run = await importing();
      }
      const {
        result: imported,
        peaks: [walPeak = 0, stagingPeak = 0],
      } = run;
      const dbSize = fileSize(dbPath);
      totalRecords += imported.records;
      totalImportMs += imported.importMs;
      totalRawMs += raw.rawMs;
      peakWal = Math.max(peakWal, walPeak);
      rows.push({
        source: name,
        status: imported.status,
        records: imported.records,
        rejected: imported.rejected,
        "import s": seconds(imported.importMs),
        "import cpu s": seconds(imported.importCpuMs),
        "records/s": Math.round(imported.records / (imported.importMs / 1000)),
        "ceiling s": seconds(raw.rawMs),
        "ceiling records/s": Math.round(raw.records / (raw.rawMs / 1000)),
        "import/ceiling": (imported.importMs / raw.rawMs).toFixed(1),
        "peak RSS MB": Math.round(imported.peakRssMb),
        "ceiling RSS MB": Math.round(raw.peakRssMb),
        "peak WAL MB": mb(walPeak),
        "peak staging MB": mb(stagingPeak),
        "DB MB": mb(dbSize),
      });
      console.error(
        `${name}: ${imported.status}, ${imported.records} records in ${seconds(imported.importMs)} s (ceiling ${seconds(raw.rawMs)} s), ` +
          `peak RSS ${Math.round(imported.peakRssMb)} MB, peak WAL ${mb(walPeak)} MB, DB ${mb(dbSize)} MB` +
          (imported.error ? `: ${imported.error}` : ""),
      );
    }
    // The same files again: every source should find its files unchanged and write nothing.
    for (const name of names) {
      const { result: again } = await inChild<ImportMeasurement>(["--import", name, "--db", dbPath]);
      totalReimportMs += again.importMs;
      const first = rows.find((row) => row.source === name)!;
      reimports.push({ source: name, status: again.status, "first s": first["import s"], "re-import s": seconds(again.importMs) });
    }
    size = sizeReport(dbPath);
  } finally {
    if (tempDir) rmSync(tempDir, { recursive: true, force: true });
  }
  rows.push({
    source: "all",
    status: "",
    records: totalRecords,
    "import s": seconds(totalImportMs),
    "records/s": Math.round(totalRecords / (totalImportMs / 1000)),
    "ceiling s": seconds(totalRawMs),
    "import/ceiling": (totalImportMs / totalRawMs).toFixed(1),
    "peak WAL MB": mb(peakWal),
    "DB MB": values.db ? mb(fileSize(dbPath)) : "",
  });
  console.log(`Mirror: ${mirrorDir}\nDatabase: ${values.db ? dbPath : "(temporary, deleted)"}; sources imported in sync order into it`);
  console.table(rows);
  console.log(
    `Unchanged re-import of every source: ${seconds(totalReimportMs)} s, ${(totalReimportMs / totalImportMs).toFixed(3)}× the first import (target ≤ 0.3×)`,
  );
  console.table(reimports);
  const records = (object: { rows: number }) => Math.max(1, object.rows);
  console.log(`Database file ${mb(size.fileBytes)} MB, of which ${mb(size.freeBytes)} MB free pages; per table and index (bytes per row of its table):`);
  console.table(
    size.objects
      .filter((object) => object.bytes >= 1024 * 1024)
      .map((object) => ({
        name: object.name,
        kind: object.kind,
        table: object.table,
        MB: mb(object.bytes),
        rows: object.rows,
        "bytes/row": Math.round(object.bytes / records(object)),
      })),
  );
  if (serving) {
    const { source, idle, during } = serving;
    console.log(
      `Serving (production build, ${SERVING_PATHS.length} paths, 4 connections, ${REQUESTS_PER_SECOND} requests/s): idle ${IDLE_SECONDS} s p50 ${idle.p50Ms.toFixed(1)} ms p95 ${idle.p95Ms.toFixed(1)} ms (${idle.requests} answers); ` +
        `during the ${source} import p50 ${during.p50Ms.toFixed(1)} ms p95 ${during.p95Ms.toFixed(1)} ms (${during.requests} answers, ${during.non2xx} not 2xx, ${during.errors} errors): ` +
        `${(during.p95Ms / Math.max(1, idle.p95Ms)).toFixed(2)}× idle p95 (target ≤ 1.5×)`,
    );
  } else {
    console.log("Serving during an import: not measured (no build in dist/, or --serve none)");
  }
}
