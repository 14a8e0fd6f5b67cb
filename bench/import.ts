import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import pino from "pino";
import { openSqliteDatabase } from "../server/db/connection";
import { migrateToLatest } from "../server/db/migrate";
import { loadPipelineConfig } from "../server/pipeline/config";
import { openFeedFile } from "../server/pipeline/input";
import type { FeedFile, ReadContext } from "../server/pipeline/run";
import { getSource, SOURCES } from "../server/pipeline/sources";
import { resolveLocations, syncSource } from "../server/pipeline/sync";

/**
 * `npm run bench:import [-- --mirror DIR] [--source NAME]...`: imports every
 * snapshot into a fresh database, one child process per source so that each
 * peak RSS is its own, and prints records/s, the ratio to the raw limit (the
 * time to only decompress and parse the same files) and peak memory.
 */
const projectRoot = resolve(import.meta.dirname, "..");
const { values } = parseArgs({
  options: {
    mirror: { type: "string" },
    source: { type: "string", multiple: true },
    child: { type: "string" },
    db: { type: "string" },
  },
});
const mirrorDir = values.mirror ?? process.env.THREAT_RADAR_DATA_DIR ?? resolve(projectRoot, "../shared/data");
const config = loadPipelineConfig({});
const silent = pino({ level: "silent" });

interface Measurement {
  source: string;
  records: number;
  rejected: number;
  rawMs: number;
  importMs: number;
  /** CPU time of the import (user + system): unlike wall time, barely affected by other load on the machine. */
  importCpuMs: number;
  peakRssMb: number;
  status: string;
}

/** Decompress and parse only: the same reader the import uses, without a database. */
async function rawParse(name: string, locations: string[]): Promise<number> {
  const source = getSource(name)!;
  const ctx: ReadContext = {
    source: name,
    locations,
    signal: new AbortController().signal,
    logger: silent,
    now: new Date(),
    headers: {},
    cursor: null,
    setCursor: () => undefined,
    plan: async () => undefined,
    async fetch(location): Promise<FeedFile> {
      const size = statSync(location).size;
      return { location, path: location, name: location.split("/").pop() ?? location, size, lastModified: null };
    },
    open: (file) => openFeedFile(file.path),
  };
  let records = 0;
  for await (const _ of source.read(ctx)) records += 1;
  return records;
}

async function child(name: string, dbPath: string): Promise<Measurement> {
  const locations = resolveLocations(getSource(name)!, config, mirrorDir);
  let started = performance.now();
  await rawParse(name, locations);
  const rawMs = performance.now() - started;

  const handle = openSqliteDatabase(dbPath);
  await migrateToLatest(handle.db);
  started = performance.now();
  const cpuBefore = process.cpuUsage();
  const outcome = await syncSource(name, { db: handle.db, config, logger: silent, mirrorDir });
  const importMs = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  await handle.close();
  const { added, updated, unchanged, rejected } = outcome.counts;
  return {
    source: name,
    records: added + updated + unchanged + rejected,
    rejected,
    rawMs,
    importMs,
    importCpuMs: (cpu.user + cpu.system) / 1000,
    peakRssMb: process.resourceUsage().maxRSS / 1024,
    status: outcome.status,
  };
}

if (values.child) {
  const measurement = await child(values.child, values.db ?? ":memory:");
  process.stdout.write(`${JSON.stringify(measurement)}\n`);
} else {
  const names = values.source ?? SOURCES.filter((s) => resolveLocations(s, config, mirrorDir).length > 0).map((s) => s.name);
  const rows = [];
  for (const name of names) {
    const dir = mkdtempSync(join(tmpdir(), "threat-radar-bench-"));
    const run = spawnSync(
      process.execPath,
      ["--import", "tsx", "bench/import.ts", "--child", name, "--db", join(dir, "bench.sqlite"), "--mirror", mirrorDir],
      { cwd: projectRoot, encoding: "utf8", maxBuffer: 1 << 24 },
    );
    rmSync(dir, { recursive: true, force: true });
    const line = run.stdout.trim().split("\n").pop() ?? "";
    if (run.status !== 0 || !line.startsWith("{")) {
      console.error(`${name}: benchmark failed\n${run.stderr}`);
      continue;
    }
    const m = JSON.parse(line) as Measurement;
    rows.push({
      source: m.source,
      status: m.status,
      records: m.records,
      "import s": (m.importMs / 1000).toFixed(1),
      "import cpu s": (m.importCpuMs / 1000).toFixed(1),
      "records/s": Math.round(m.records / (m.importMs / 1000)),
      "raw parse s": (m.rawMs / 1000).toFixed(1),
      "raw records/s": Math.round(m.records / (m.rawMs / 1000)),
      "import/raw": (m.importMs / m.rawMs).toFixed(1),
      "peak RSS MB": Math.round(m.peakRssMb),
    });
    console.error(`${name}: ${m.records} records in ${(m.importMs / 1000).toFixed(1)} s`);
  }
  console.table(rows);
}
