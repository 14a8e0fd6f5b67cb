import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { parseArgs } from "node:util";
import { SERVER_NODE_FLAGS } from "../server/runtime/server-heap";
import { markdownTable, section } from "./load/report";
import { BROWSER_HEADERS } from "./load/run-load";
import { readBuildId, startProductionServer } from "./load/servers";
import { readSqliteUrlMix } from "./load/url-mix";

/**
 * `npm run bench:memory -- --db PATH [--settle 180]`
 *
 * Resident memory of the production server (issue 14: idle RSS on the full
 * snapshot import ≤ 150 MB), a benchmark and never a test. It starts the
 * built server as production does (node with SERVER_NODE_FLAGS) on a SQLite
 * file with feed syncing off, and reads /proc/<pid>/status:
 *
 * 1. idle after start-up (10 s after it answers);
 * 2. right after one request to every URL of bench:load's mix, one at a
 *    time (every route kind: pages, payloads, API, exports);
 * 3. every 10 s for `--settle` seconds after that, with nothing asked of it.
 *
 * The ceiling, measured in the same run: a bare `node` with the same flags
 * and nothing loaded, the least any Node server can hold.
 */
const TARGET_IDLE_MB = 150;
const SAMPLE_EVERY_MS = 10_000;
/** Decimal megabytes (10^6 bytes), the stricter reading of the target. */
const mb = (kib: number) => (kib * 1024) / 1e6;

const { values: flags } = parseArgs({ options: { db: { type: "string" }, settle: { type: "string", default: "180" } } });
const databasePath = flags.db;
const settleSeconds = Number(flags.settle);
if (databasePath === undefined || !existsSync(databasePath)) {
  console.error("--db PATH must name a SQLite file (a copy: the server migrates it at start-up)");
  process.exit(2);
}
if (!Number.isInteger(settleSeconds) || settleSeconds < 0) {
  console.error("--settle must be a whole number of seconds");
  process.exit(2);
}

interface Sample {
  when: string;
  rssKib: number;
  anonKib: number;
  fileKib: number;
  heapMb: string;
}

const wait = (ms: number) => new Promise((resume) => setTimeout(resume, ms));

function statusOf(pid: number): { rssKib: number; anonKib: number; fileKib: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? NaN);
  return { rssKib: field("VmRSS"), anonKib: field("RssAnon"), fileKib: field("RssFile") };
}

async function heapTotalMb(baseUrl: string): Promise<string> {
  const metrics = await (await fetch(`${baseUrl}/metrics`)).text();
  const bytes = Number(/^nodejs_heap_size_total_bytes (\S+)$/m.exec(metrics)?.[1]);
  return Number.isFinite(bytes) ? (bytes / 1e6).toFixed(0) : "–";
}

/** RSS of a bare node with the server's flags, once it has settled. */
async function bareNodeCeiling(): Promise<Sample> {
  const child = spawn(process.execPath, [...SERVER_NODE_FLAGS, "-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
  try {
    await wait(2_000);
    return { when: "bare `node` (the ceiling)", ...statusOf(child.pid!), heapMb: "–" };
  } finally {
    child.kill();
  }
}

const paths = (await readSqliteUrlMix(databasePath, readBuildId())).map((url) => url.path);
const ceiling = await bareNodeCeiling();
const server = await startProductionServer(databasePath);
const samples: Sample[] = [ceiling];
const sample = async (when: string) => samples.push({ when, ...statusOf(server.pid), heapMb: await heapTotalMb(server.url) });
try {
  await wait(SAMPLE_EVERY_MS);
  await sample("idle after start-up");
  const statuses = new Map<number, number>();
  for (const path of paths) {
    const response = await fetch(`${server.url}${path}`, { headers: BROWSER_HEADERS, redirect: "manual" });
    await response.arrayBuffer();
    statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
  }
  await sample(`after ${paths.length} URLs, one at a time`);
  for (let elapsed = SAMPLE_EVERY_MS; elapsed <= settleSeconds * 1_000; elapsed += SAMPLE_EVERY_MS) {
    await wait(SAMPLE_EVERY_MS);
    if (elapsed % 30_000 === 0 || elapsed + SAMPLE_EVERY_MS > settleSeconds * 1_000) await sample(`${elapsed / 1_000} s later`);
  }
  section(
    `Resident memory of the production server (\`node ${SERVER_NODE_FLAGS.join(" ")} dist/server/index.js\`), load average ${loadavg()[0]?.toFixed(2)}`,
    markdownTable(
      samples.map((entry) => ({
        when: entry.when,
        "RSS MB": mb(entry.rssKib).toFixed(1),
        "anonymous MB": mb(entry.anonKib).toFixed(1),
        "file-backed MB": mb(entry.fileKib).toFixed(1),
        "V8 heap MB": entry.heapMb,
      })),
    ),
  );
  const idle = samples[1]!;
  console.log(
    `Answers: ${[...statuses].map(([status, n]) => `${n} × ${status}`).join(", ")}. ` +
      `Idle after start-up ${mb(idle.rssKib).toFixed(1)} MB (target ≤ ${TARGET_IDLE_MB} MB: ${mb(idle.rssKib) <= TARGET_IDLE_MB ? "met" : "not met"}), ` +
      `${(idle.rssKib / ceiling.rssKib).toFixed(2)}× a bare node.`,
  );
} finally {
  await server.stop();
}
