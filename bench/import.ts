import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import pino from "pino";
import { sizeReport } from "./db-size";
import { startServingLoad, REQUESTS_PER_SECOND, SERVING_PATHS, type ServingFigures } from "./import-serving";
import { hasProductionBuild, readBuildId, startProductionServer } from "./load/servers";
import { migrateToLatest } from "../server/db/migrate";
import { databaseTarget, describeTarget, openDatabase, type DatabaseTarget } from "../server/db/target";
import { loadPipelineConfig } from "../server/pipeline/config";
import { openImportStore, openSqliteImportStore } from "../server/pipeline/engine/store";
import { benchPostgres, postgresDatabaseBytes, type BenchPostgres } from "./postgres-target";
import { readContext } from "./local-read-context";
import { rawParseFiles } from "./raw-parse";
import { IMPORT_HEAP_FLAGS } from "../server/pipeline/import-heap";
import { lowerChildPriority, lowerImportPriority } from "../server/pipeline/import-priority";
import { getSource, SOURCES } from "../server/pipeline/source-catalogue";
import { resolveLocations, syncSources } from "../server/pipeline/sync";

const USAGE = `Usage: npm run bench:import -- [--mirror DIR] [--source NAME]... [--db PATH] [--adapters sqlite,postgres]

Imports every source found in the mirror (default ../shared/data), in the
order a full sync runs them, into one fresh database, with the import engine
\`npm run sync\` uses (an import store, syncSources under the import lock), so
the steps that join sources (CVE priorities from KEV/EPSS/exploits, CWE
names, indicator-CVE links) run against the data the earlier sources stored.
Each source is measured on its own: the import runs in a child process of
its own (its peak RSS is the import's alone) while this process samples the
size of the WAL and of the source's staging file. Two ceilings run in
another child, in the same run, so they see the same machine load: the raw
parse (the files the reader opens, decompressed and parsed in the
publisher's format, no normalisation: bench/raw-parse.ts), which the
targets are measured against, and the reader (the same files through the
import's own reader: parsed, validated and normalised, no database).
  --source NAME  only these sources (repeatable), still in sync order; the
                 cross-source steps then see only what these stored
  --mirror DIR   directory laid out like ../shared/data
  --db PATH      keep the SQLite database here instead of in a temporary folder
                 (it must not exist yet, or hold only earlier runs' sources)
  --adapters A   sqlite, postgres, or both (sqlite,postgres): each source is
                 imported into each adapter's database right after its ceilings
                 are measured, and a last table puts the adapters side by side.
                 Default: postgres when DATABASE_URL is set, else sqlite
  --postgres     the same as --adapters postgres
                 PostgreSQL is DATABASE_URL's database (empty, or holding only
                 earlier runs' sources), else a throw-away cluster started for
                 the run (tests/helpers/postgres-cluster.ts, fsync off) and
                 deleted after it. WAL and staging peaks are SQLite's only.
  --serve NAME   while NAME imports (default maltrail, the largest), the
                 production build (npm run build first) serves the same
                 database and a few pages are requested (4 connections,
                 20 requests/s in all, so the import keeps its CPU):
                 p95 during the import against 30 s idle just before it
                 (after a 10 s warm-up), in all and per path (answers, p95,
                 and the slowest answer). That import runs under SCHED_IDLE
                 (nice 19 without chrt), as the server's scheduler runs imports.
                 "none" skips this (it is also skipped when there is no build)

After the first import of every source, each is imported again from the
same files: the unchanged re-import's time against the first import's.`;

const projectRoot = resolve(import.meta.dirname, "..");
const { values } = parseArgs({
  options: {
    mirror: { type: "string" },
    source: { type: "string", multiple: true },
    db: { type: "string" },
    url: { type: "string" },
    adapters: { type: "string" },
    postgres: { type: "boolean", default: false },
    serve: { type: "string" },
    raw: { type: "string" },
    import: { type: "string" },
    nice: { type: "boolean", default: false },
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
  /** The source's files through its own reader: parsed, validated and normalised. */
  readerMs: number;
  /** The same files decompressed and parsed in the publisher's format only (issue 11's "raw parse"). */
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
  /** The CPU priority the import ran at, when it was lowered as the scheduler's (--nice). */
  priority: string | null;
}

/** The two ceilings, no database: the reader the import uses, then the raw parse of the files it opened. */
async function rawParse(name: string): Promise<RawMeasurement> {
  const source = getSource(name)!;
  const local = readContext(name, resolveLocations(source, config, mirrorDir));
  const opened = new Set<string>();
  const ctx: typeof local = { ...local, open: (file) => (opened.add(file.path), local.open(file)) };

  const readerStarted = performance.now();
  let records = 0;
  for await (const _ of source.read(ctx)) records += 1;
  const readerMs = performance.now() - readerStarted;
  const rawStarted = performance.now();
  await rawParseFiles([...opened]);
  return { records, readerMs, rawMs: performance.now() - rawStarted, peakRssMb: peakRssMb() };
}

/**
 * Seconds of idle serving measured before the import the server is measured
 * beside: 600 answers, so that the baseline's p95 is not decided by its ten
 * slowest (with 10 s it ranged from 5.6 to 19.6 ms on the same idle machine).
 */
const IDLE_SECONDS = 30;
const WARM_UP_SECONDS = 10;

/** One source's import into the shared database, as `npm run sync` does it: an import store and syncSources. */
async function importOne(name: string, target: DatabaseTarget, priority: string | null): Promise<ImportMeasurement> {
  const store = openImportStore(target);
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
      priority,
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
async function inChild<T>(args: string[], watch: readonly string[] = [], env: NodeJS.ProcessEnv = {}): Promise<{ result: T; peaks: number[] }> {
  // An import child runs with the import process's heap cap, as `npm run sync` and the scheduler do.
  const heap = args.includes("--import") ? IMPORT_HEAP_FLAGS : [];
  const child = spawn(process.execPath, [...heap, "--import", "tsx", "bench/import.ts", ...args, "--mirror", mirrorDir], {
    cwd: projectRoot,
    // A PostgreSQL URL travels in the environment, not on the command line that `ps` shows.
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  // As the scheduler does for its import process (runner.ts): the child starts at the import's priority.
  if (args.includes("--nice")) lowerChildPriority(child.pid);
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

/** How the parent tells an import child which PostgreSQL database to write to. */
const CHILD_URL_VARIABLE = "BENCH_IMPORT_DATABASE_URL";

const seconds = (ms: number) => (ms / 1000).toFixed(1);
const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);

if (values.raw) {
  process.stdout.write(`${JSON.stringify(await rawParse(values.raw))}\n`);
} else if (values.import) {
  const url = process.env[CHILD_URL_VARIABLE];
  if (!values.db && !url) throw new Error(`--import needs --db or ${CHILD_URL_VARIABLE}`);
  const target: DatabaseTarget = url ? { kind: "postgres", url, poolSize: 3 } : { kind: "sqlite", path: values.db! };
  const priority = values.nice ? lowerImportPriority() : null;
  process.stdout.write(`${JSON.stringify(await importOne(values.import, target, priority))}\n`);
} else {
  const unknown = (values.source ?? []).filter((name) => !getSource(name));
  const adapters = (values.adapters ?? (values.postgres || process.env.DATABASE_URL ? "postgres" : "sqlite")).split(",").map((a) => a.trim());
  const badAdapters = adapters.filter((a) => a !== "sqlite" && a !== "postgres");
  if (unknown.length > 0 || badAdapters.length > 0 || adapters.length === 0) {
    console.error(`${unknown.length > 0 ? `Unknown source(s): ${unknown.join(", ")}` : `Unknown adapter(s): ${badAdapters.join(", ")}`}\n\n${USAGE}`);
    process.exit(2);
  }
  const names = SOURCES.filter((s) => !values.source || values.source.includes(s.name))
    .filter((s) => resolveLocations(s, config, mirrorDir).length > 0)
    .map((s) => s.name);
  if (names.length === 0) {
    console.error(`No source to import in the mirror ${mirrorDir}.\n\n${USAGE}`);
    process.exit(2);
  }
  await runBenchmark(names, [...new Set(adapters)] as Adapter[]);
}

type Adapter = "sqlite" | "postgres";

/** One adapter's database for the run, and how the children and the server reach it. */
interface AdapterRun {
  adapter: Adapter;
  /** What the report shows: the SQLite file, or the PostgreSQL database (no password). */
  label: string;
  importArgs: string[];
  childEnv: NodeJS.ProcessEnv;
  /** Files sampled while a source imports: the WAL and the source's staging file (SQLite only). */
  watch(name: string): string[];
  /** DATABASE_PATH or DATABASE_URL for the production server measured beside an import. */
  serverTarget: string;
  bytes(): Promise<number>;
  rows: Array<Record<string, string | number>>;
  reimports: Array<Record<string, string | number>>;
  importMs: Map<string, number>;
  totalReimportMs: number;
  serving: { source: string; priority: string | null; idle: ServingFigures; during: ServingFigures } | null;
  close(): Promise<void>;
}

async function openAdapterRun(adapter: Adapter): Promise<AdapterRun> {
  const common = { rows: [], reimports: [], importMs: new Map<string, number>(), totalReimportMs: 0, serving: null };
  if (adapter === "sqlite") {
    const tempDir = values.db ? null : mkdtempSync(join(tmpdir(), "threat-radar-bench-"));
    const dbPath = values.db ? resolve(values.db) : join(tempDir!, "bench.sqlite");
    const setup = openSqliteImportStore(dbPath);
    await migrateToLatest(setup.db);
    await setup.close();
    return {
      ...common,
      adapter,
      label: values.db ? dbPath : "(temporary, deleted)",
      importArgs: ["--db", dbPath],
      childEnv: {},
      watch: (name) => [`${dbPath}-wal`, `${dbPath}.staging-${name}`],
      serverTarget: dbPath,
      bytes: async () => fileSize(dbPath),
      async close() {
        if (tempDir) rmSync(tempDir, { recursive: true, force: true });
      },
    };
  }
  const postgres: BenchPostgres = await benchPostgres();
  const target = databaseTarget({ DATABASE_URL: postgres.url, DATABASE_PATH: "", DATABASE_POOL_SIZE: 2 });
  const setup = openDatabase(target);
  await migrateToLatest(setup.db);
  await setup.close();
  return {
    ...common,
    adapter,
    label: postgres.throwAway ? "(throw-away PostgreSQL cluster, deleted)" : describeTarget(target),
    importArgs: [],
    childEnv: { [CHILD_URL_VARIABLE]: postgres.url },
    watch: () => [],
    serverTarget: postgres.url,
    bytes: () => postgresDatabaseBytes(postgres.url),
    close: () => postgres.stop(),
  };
}

async function runBenchmark(names: readonly string[], adapters: readonly Adapter[]): Promise<void> {
  const serveSource = values.serve === "none" || !hasProductionBuild() ? null : (values.serve ?? "maltrail");
  // A build older than the sources stops the run here, not minutes later when the server starts on the new schema.
  if (serveSource) readBuildId();
  const runs: AdapterRun[] = [];
  const ceilingMs = new Map<string, number>();
  const readerMs = new Map<string, number>();
  const recordsOf = new Map<string, number>();
  let size: ReturnType<typeof sizeReport> | null = null;
  try {
    for (const adapter of adapters) runs.push(await openAdapterRun(adapter));
    for (const name of names) {
      // The ceilings of a source, then each adapter's import right after them: all of them under the same load.
      const { result: raw } = await inChild<RawMeasurement>(["--raw", name]);
      ceilingMs.set(name, raw.rawMs);
      readerMs.set(name, raw.readerMs);
      for (const run of runs) {
        // The import measured beside the server runs at the scheduler's import process's CPU priority; the others at the ceiling's.
        const importing = () =>
          inChild<ImportMeasurement>(["--import", name, ...run.importArgs, ...(name === serveSource ? ["--nice"] : [])], run.watch(name), run.childEnv);
        let measured: Awaited<ReturnType<typeof importing>>;
        if (name === serveSource) {
          const server = await startProductionServer(run.serverTarget);
          try {
            const load = await startServingLoad(server.url);
            try {
              // A server just started renders cold (JIT, page cache, response cache): warm it first.
              await load.measure({ seconds: WARM_UP_SECONDS });
              const idle = await load.measure({ seconds: IDLE_SECONDS });
              const running = importing();
              const during = await load.measure({ done: running });
              measured = await running;
              run.serving = { source: name, priority: measured.result.priority, idle, during };
            } finally {
              await load.stop();
            }
          } finally {
            await server.stop();
          }
        } else {
          measured = await importing();
        }
        const {
          result: imported,
          peaks: [walPeak = 0, stagingPeak = 0],
        } = measured;
        const dbBytes = await run.bytes();
        run.importMs.set(name, imported.importMs);
        recordsOf.set(name, imported.records);
        run.rows.push({
          source: name,
          status: imported.status,
          records: imported.records,
          rejected: imported.rejected,
          "import s": seconds(imported.importMs),
          "import cpu s": seconds(imported.importCpuMs),
          "records/s": Math.round(imported.records / (imported.importMs / 1000)),
          "raw parse s": seconds(raw.rawMs),
          "import/raw parse": (imported.importMs / raw.rawMs).toFixed(1),
          "reader s": seconds(raw.readerMs),
          "import/reader": (imported.importMs / raw.readerMs).toFixed(1),
          "peak RSS MB": Math.round(imported.peakRssMb),
          "reader RSS MB": Math.round(raw.peakRssMb),
          ...(run.adapter === "sqlite" ? { "peak WAL MB": mb(walPeak), "peak staging MB": mb(stagingPeak) } : {}),
          "DB MB": mb(dbBytes),
        });
        console.error(
          `${run.adapter} ${name}: ${imported.status}, ${imported.records} records in ${seconds(imported.importMs)} s (raw parse ${seconds(raw.rawMs)} s, reader ${seconds(raw.readerMs)} s), ` +
            `peak RSS ${Math.round(imported.peakRssMb)} MB, DB ${mb(dbBytes)} MB` +
            (imported.error ? `: ${imported.error}` : ""),
        );
      }
    }
    // The same files again: every source should find its files unchanged and write nothing.
    for (const name of names) {
      for (const run of runs) {
        const { result: again } = await inChild<ImportMeasurement>(["--import", name, ...run.importArgs], [], run.childEnv);
        run.totalReimportMs += again.importMs;
        const first = run.importMs.get(name)!;
        run.reimports.push({ source: name, status: again.status, "first s": seconds(first), "re-import s": seconds(again.importMs) });
      }
    }
    const sqliteRun = runs.find((run) => run.adapter === "sqlite");
    if (sqliteRun) size = sizeReport(sqliteRun.serverTarget);
    for (const run of runs) await reportAdapter(run, ceilingMs, readerMs, size);
  } finally {
    await Promise.all(runs.map((run) => run.close()));
  }
  if (runs.length > 1) {
    const [a, b] = runs as [AdapterRun, AdapterRun];
    const total = (run: AdapterRun) => [...run.importMs.values()].reduce((sum, ms) => sum + ms, 0);
    const rows = names.map((name) => {
      const ceiling = ceilingMs.get(name)!;
      const [msA, msB] = [a.importMs.get(name)!, b.importMs.get(name)!];
      return {
        source: name,
        records: recordsOf.get(name)!,
        "raw parse s": seconds(ceiling),
        [`${a.adapter} s`]: seconds(msA),
        [`${b.adapter} s`]: seconds(msB),
        [`${a.adapter}/raw parse`]: (msA / ceiling).toFixed(1),
        [`${b.adapter}/raw parse`]: (msB / ceiling).toFixed(1),
        [`${b.adapter}/${a.adapter}`]: (msB / msA).toFixed(2),
      };
    });
    const ceilingTotal = [...ceilingMs.values()].reduce((sum, ms) => sum + ms, 0);
    rows.push({
      source: "all",
      records: [...recordsOf.values()].reduce((sum, n) => sum + n, 0),
      "raw parse s": seconds(ceilingTotal),
      [`${a.adapter} s`]: seconds(total(a)),
      [`${b.adapter} s`]: seconds(total(b)),
      [`${a.adapter}/raw parse`]: (total(a) / ceilingTotal).toFixed(1),
      [`${b.adapter}/raw parse`]: (total(b) / ceilingTotal).toFixed(1),
      [`${b.adapter}/${a.adapter}`]: (total(b) / total(a)).toFixed(2),
    });
    console.log(`\nSide by side (same run, each source's imports right after its ceilings): first import per source`);
    console.table(rows);
  }
}

async function reportAdapter(
  run: AdapterRun,
  ceilingMs: ReadonlyMap<string, number>,
  readerMs: ReadonlyMap<string, number>,
  size: ReturnType<typeof sizeReport> | null,
): Promise<void> {
  const totalImportMs = [...run.importMs.values()].reduce((sum, ms) => sum + ms, 0);
  const totalRawMs = [...ceilingMs.values()].reduce((sum, ms) => sum + ms, 0);
  const totalReaderMs = [...readerMs.values()].reduce((sum, ms) => sum + ms, 0);
  const totalRecords = run.rows.reduce((sum, row) => sum + Number(row.records), 0);
  run.rows.push({
    source: "all",
    status: "",
    records: totalRecords,
    "import s": seconds(totalImportMs),
    "records/s": Math.round(totalRecords / (totalImportMs / 1000)),
    "raw parse s": seconds(totalRawMs),
    "import/raw parse": (totalImportMs / totalRawMs).toFixed(1),
    "reader s": seconds(totalReaderMs),
    "import/reader": (totalImportMs / totalReaderMs).toFixed(1),
  });
  console.log(`\n[${run.adapter}] Mirror: ${mirrorDir}\nDatabase: ${run.label}; sources imported in sync order into it`);
  console.table(run.rows);
  const sources = run.rows.filter((row) => row.source !== "all");
  const over = sources.filter((row) => Number(row["import/raw parse"]) > 5).map((row) => `${row.source} ${row["import/raw parse"]}×`);
  const maltrail = sources.find((row) => row.source === "maltrail");
  console.log(
    `Targets, against the raw parse: overall ${(totalImportMs / totalRawMs).toFixed(1)}× (≤ 3×); over 5×: ${over.join(", ") || "none"} (≤ 5× per source)` +
      (maltrail ? `; maltrail ${maltrail["import/raw parse"]}× decompressing and splitting its lines (≤ 30×)` : ""),
  );
  console.log(
    `Unchanged re-import of every source: ${seconds(run.totalReimportMs)} s, ${(run.totalReimportMs / totalImportMs).toFixed(3)}× the first import (target ≤ 0.3×)`,
  );
  console.table(run.reimports);
  if (run.adapter === "sqlite" && size) {
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
  }
  if (run.serving) {
    const { source, priority, idle, during } = run.serving;
    console.log(
      `Serving (production build, ${SERVING_PATHS.length} paths, 4 connections, ${REQUESTS_PER_SECOND} requests/s): idle ${IDLE_SECONDS} s p50 ${idle.p50Ms.toFixed(1)} ms p95 ${idle.p95Ms.toFixed(1)} ms (${idle.requests} answers); ` +
        `during the ${source} import (${priority ?? "priority not lowered"}) p50 ${during.p50Ms.toFixed(1)} ms p95 ${during.p95Ms.toFixed(1)} ms (${during.requests} answers, ${during.non2xx} not 2xx, ${during.errors} errors): ` +
        `${(during.p95Ms / Math.max(1, idle.p95Ms)).toFixed(2)}× idle p95 (target ≤ 1.5×)`,
    );
    console.table(
      SERVING_PATHS.map((path) => ({
        path,
        "idle answers": idle.byPath[path].requests,
        "idle p95 ms": Number(idle.byPath[path].p95Ms.toFixed(1)),
        "answers during": during.byPath[path].requests,
        "p95 during ms": Number(during.byPath[path].p95Ms.toFixed(1)),
        "max during ms": Number(during.byPath[path].maxMs.toFixed(1)),
      })),
    );
  } else {
    console.log("Serving during an import: not measured (no build in dist/, or --serve none)");
  }
}
