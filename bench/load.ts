import { existsSync } from "node:fs";
import { request } from "node:http";
import { cpus, freemem, loadavg, totalmem } from "node:os";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import SQLite from "better-sqlite3";
import type { ChildServer } from "./load/child-server";
import { startHealthzProbe, type ProbeSummary } from "./load/probe";
import { count, logSummary, markdownTable, ms, percentile, section, targetTable, type Target } from "./load/report";
import { BROWSER_HEADERS, mergeLoadFigures, runLoad, type LoadFigures } from "./load/run-load";
import { BENCH_RATE_LIMITS, PROJECT_ROOT, readBuildId, startProductionServer, startStaticCeiling } from "./load/servers";
import { mixSummary, readSqliteUrlMix, type MixUrl } from "./load/url-mix";

/**
 * `npm run bench:load [-- --db PATH --connections 200 --duration 60 --page /cve-radar --ceiling-only]`
 *
 * Load on the production build (issue 9, item 8), a benchmark and never a test:
 *
 * 1. Every route kind at once: `--connections` keep-alive connections for
 *    `--duration` seconds over a URL mix built from the database, while a
 *    separate process probes `/healthz` every 100 ms.
 * 2. One page (`--page`) hammered the same way, then its HTML served from
 *    memory by a minimal Express app with the same compression: the static
 *    ceiling. Their throughputs and ratio (issue 9, item 4).
 *
 * Each server runs as a child process on loopback; the load generator
 * (autocannon, one process, pipelining 1) runs here. It prints Markdown for
 * docs/performance.md and exits 0 whatever it measured.
 */
const DEFAULT_DATABASE = resolve(PROJECT_ROOT, ".bench/full.sqlite");
const TIMEOUT_SECONDS = 10;
const PROBE_INTERVAL_MS = 100;
const TARGETS = { p99Ms: 2_000, healthzP99Ms: 100, ceilingRatio: 0.5 } as const;

const { values: flags } = parseArgs({
  options: {
    db: { type: "string" },
    connections: { type: "string", default: "200" },
    duration: { type: "string", default: "60" },
    page: { type: "string", default: "/cve-radar" },
    // Scenario 2 alone: the cached page against the static ceiling, without the mix and its preflight.
    "ceiling-only": { type: "boolean", default: false },
  },
});
const connections = Number(flags.connections);
const seconds = Number(flags.duration);
if (!Number.isInteger(connections) || connections < 1 || !Number.isInteger(seconds) || seconds < 1) {
  console.error("--connections and --duration must be whole numbers ≥ 1");
  process.exit(2);
}
if (!flags.page.startsWith("/")) {
  console.error("--page must be a path such as /cve-radar");
  process.exit(2);
}
const databasePath = resolve(flags.db ?? DEFAULT_DATABASE);
if (!existsSync(databasePath)) {
  console.error(
    `No database at ${databasePath}.\n` +
      "The reference data set is the full import of the feed snapshots: " +
      `\`npm run sync -- --mirror ../shared/data --db ${flags.db ?? ".bench/full.sqlite"}\` builds it (about half an hour on 2 cores), ` +
      "or pass --db PATH with a copy of one. The server migrates the file at start-up and keeps its WAL beside it: never point it at a live site's file.",
  );
  process.exit(2);
}
let buildId: string;
try {
  buildId = readBuildId();
} catch (error) {
  console.error((error as Error).message);
  process.exit(2);
}

const servers = new Set<ChildServer>();
const track = async (start: Promise<ChildServer>) => {
  const server = await start;
  servers.add(server);
  return server;
};
const stop = async (server: ChildServer) => {
  servers.delete(server);
  await server.stop();
};
const progress = (label: string) => (elapsed: number, answered: number) => process.stderr.write(`  ${label}: ${elapsed} s, ${count(answered)} answers\n`);

/** CPU seconds of the server and of this process (the load generator) while `run` ran. */
async function withCpu<T>(server: ChildServer, run: () => Promise<T>): Promise<{ result: T; serverCpu: number | null; generatorCpu: number }> {
  const serverBefore = server.cpuSeconds();
  const before = process.cpuUsage();
  const result = await run();
  const used = process.cpuUsage(before);
  const serverAfter = server.cpuSeconds();
  return {
    result,
    serverCpu: serverBefore === null || serverAfter === null ? null : serverAfter - serverBefore,
    generatorCpu: (used.user + used.system) / 1e6,
  };
}
const cores = (cpuSeconds: number | null) => (cpuSeconds === null ? "n/a" : `${(cpuSeconds / seconds).toFixed(2)} cores`);

async function dataSetLine(): Promise<string> {
  const sqlite = new SQLite(databasePath, { readonly: true });
  try {
    const n = (table: string) => (sqlite.prepare(`select count(*) as n from ${table}`).get() as { n: number }).n;
    return `${count(n("cves"))} CVEs, ${count(n("indicators"))} indicators, ${count(n("indicator_sightings"))} sightings`;
  } finally {
    sqlite.close();
  }
}

/**
 * One request per URL before the load, two at a time: a URL the mix got wrong
 * (a redirect or a 4xx) is dropped and named, a 5xx stays in (it is the
 * server's fault, and the load should show it), and every cache a first
 * request fills is warm when the clock starts, as on a site that has been up.
 */
async function preflight(baseUrl: string, mix: readonly MixUrl[]): Promise<{ kept: MixUrl[]; table: string; seconds: number }> {
  const started = performance.now();
  const answers: Array<{ url: MixUrl; status: number; ms: number }> = [];
  const queue = [...mix];
  const worker = async () => {
    for (let url = queue.shift(); url; url = queue.shift()) {
      const t0 = performance.now();
      try {
        const res = await fetch(`${baseUrl}${url.path}`, { headers: BROWSER_HEADERS, redirect: "manual", signal: AbortSignal.timeout(120_000) });
        await res.arrayBuffer();
        answers.push({ url, status: res.status, ms: performance.now() - t0 });
      } catch (error) {
        answers.push({ url, status: 0, ms: performance.now() - t0 });
        process.stderr.write(`  preflight ${url.path}: ${(error as Error).message}\n`);
      }
    }
  };
  await Promise.all([worker(), worker()]);
  const odd = answers.filter((a) => a.status < 200 || a.status > 299);
  const dropped = new Set(odd.filter((a) => a.status >= 300 && a.status < 500).map((a) => a.url));
  const statuses =
    odd.length === 0
      ? "Every URL answered 2xx."
      : markdownTable(
          odd.map((a) => ({ URL: `\`${a.url.path}\``, status: a.status || "no answer", "": dropped.has(a.url) ? "dropped from the mix" : "kept" })),
        );
  const slowest = [...answers].sort((a, b) => b.ms - a.ms).slice(0, 8);
  const table = `${statuses}\n\nSlowest first requests:\n\n${markdownTable(slowest.map((a) => ({ kind: a.url.kind, URL: `\`${a.url.path}\``, ms: ms(a.ms) })))}`;
  return { kept: mix.filter((url) => !dropped.has(url)), table, seconds: (performance.now() - started) / 1000 };
}

/** Seconds until `/healthz` answers within 100 ms again after the load stopped (a backlog still being worked off), at most `capSeconds`. */
async function recoverySeconds(baseUrl: string, capSeconds: number): Promise<number | null> {
  const started = performance.now();
  while ((performance.now() - started) / 1000 < capSeconds) {
    const t0 = performance.now();
    try {
      const res = await fetch(`${baseUrl}/healthz`, { signal: AbortSignal.timeout(1_000) });
      await res.arrayBuffer();
      if (res.ok && performance.now() - t0 <= TARGETS.healthzP99Ms) return (t0 - started) / 1000;
    } catch {
      // no answer within 1 s: still busy
    }
    await new Promise((done) => setTimeout(done, 100));
  }
  return null;
}

function loadTables(figures: LoadFigures, mixOrder: readonly string[]) {
  const answered = figures.latencies.length;
  const statusRows = [...figures.byStatus]
    .sort(([a], [b]) => a - b)
    .map(([status, n]) => ({
      status,
      responses: count(n),
      note: status === 503 ? `${count(figures.shed)} with Retry-After (deliberate shedding)` : status >= 500 ? "server error" : "",
    }));
  const empty = { latencies: [], timeouts: 0, non2xx: 0 };
  const kinds = [...new Set([...mixOrder, ...figures.byKind.keys()])].map((kind) => [kind, figures.byKind.get(kind) ?? empty] as const);
  const latency = (values: readonly number[], p: number) => (values.length === 0 ? "–" : ms(percentile(values, p)));
  const kindRows = kinds.map(([kind, f]) => ({
    kind,
    answered: count(f.latencies.length),
    "p50 ms": latency(f.latencies, 50),
    "p99 ms": latency(f.latencies, 99),
    "max ms": latency(f.latencies, 100),
    "timeouts at 10 s": count(f.timeouts),
    "non-2xx": count(f.non2xx),
  }));
  const summary = markdownTable([
    {
      "requests/s": (answered / figures.seconds).toFixed(1),
      answered: count(answered),
      "p50 ms": ms(percentile(figures.latencies, 50)),
      "p90 ms": ms(percentile(figures.latencies, 90)),
      "p99 ms": ms(percentile(figures.latencies, 99)),
      "max ms": ms(percentile(figures.latencies, 100)),
      errors: count(figures.errors),
      "timeouts at 10 s": count(figures.timeouts),
      "MB received": (figures.bytes / 1e6).toFixed(1),
    },
  ]);
  return { summary, statuses: markdownTable(statusRows), kinds: markdownTable(kindRows) };
}

/** Answered probes plus, as lower bounds, the ones still waiting at the end. */
function probeLatencies(probe: ProbeSummary): number[] {
  return [...probe.latencies, ...probe.unansweredWaits];
}

/** The answers other than 2xx, by status ("503 × 12, 500 × 3"), or 0. */
function nonOk(figures: LoadFigures): string {
  const odd = [...figures.byStatus].filter(([status]) => status < 200 || status > 299).sort(([a], [b]) => a - b);
  return odd.length === 0 ? "0" : odd.map(([status, n]) => `${status} × ${count(n)}`).join(", ");
}

function fiveHundreds(figures: LoadFigures): number {
  let n = 0;
  for (const [status, responses] of figures.byStatus) if (status >= 500) n += responses;
  return n - figures.shed;
}

async function fetchPage(baseUrl: string, path: string, encoding: string) {
  const res = await fetch(`${baseUrl}${path}`, { headers: { ...BROWSER_HEADERS, "accept-encoding": encoding }, redirect: "manual" });
  if (res.status !== 200) throw new Error(`${path} answered ${res.status}; --page must name a page that answers 200`);
  return { body: Buffer.from(await res.arrayBuffer()), contentType: res.headers.get("content-type") ?? "text/html; charset=utf-8" };
}

/** Compressed size as the client receives it: fetch decodes, so the length comes from a raw request. */
function encodedSize(baseUrl: string, path: string): Promise<{ bytes: number; encoding: string }> {
  return new Promise((done, fail) => {
    request(`${baseUrl}${path}`, { headers: BROWSER_HEADERS }, (res) => {
      let bytes = 0;
      res.on("data", (chunk: Buffer) => (bytes += chunk.length));
      res.on("end", () => done({ bytes, encoding: res.headers["content-encoding"] ?? "identity" }));
      res.on("error", fail);
    })
      .on("error", fail)
      .end();
  });
}

/** Scenario 1: the mix, with `/healthz` probed beside it; returns its targets. */
async function mixScenario(): Promise<Target[]> {
  const server = await track(startProductionServer(databasePath));
  const fullMix = await readSqliteUrlMix(databasePath, buildId);
  const mixOrder = [...new Set(fullMix.map((url) => url.kind))];
  section(
    "URL mix (built from the data set)",
    `${fullMix.length} URLs, each connection walks all of them in its own order.\n\n${markdownTable(mixSummary(fullMix))}`,
  );
  const checked = await preflight(server.url, fullMix);
  section("Preflight (one request per URL, caches warmed)", `${checked.seconds.toFixed(1)} s for ${fullMix.length} URLs, two at a time.\n\n${checked.table}`);
  const mix = checked.kept;

  const probe = await startHealthzProbe(server.url, PROBE_INTERVAL_MS);
  const scenario1 = await withCpu(server, () =>
    runLoad({ baseUrl: server.url, mix, connections, seconds, timeoutSeconds: TIMEOUT_SECONDS, onProgress: progress("mix") }),
  );
  const probed = await probe.stop();
  const recovered = await recoverySeconds(server.url, 120);
  const load = scenario1.result;
  const tables = loadTables(load, mixOrder);
  const healthz = probeLatencies(probed);
  const late = healthz.filter((latency) => latency > 1_000).length;
  const unanswered = probed.unansweredWaits.length;
  section(
    `Scenario 1: ${connections} connections for ${seconds} s over the mix`,
    `${tables.summary}\n\nLatency is the whole response, body included, of the requests answered within ${TIMEOUT_SECONDS} s.` +
      ` Server CPU: ${cores(scenario1.serverCpu)}; load generator CPU: ${cores(scenario1.generatorCpu)}.` +
      ` \`/healthz\` answered within 100 ms again ${recovered === null ? "not within 120 s" : `${recovered.toFixed(1)} s`} after the load stopped.\n\n` +
      `Responses by status:\n\n${tables.statuses}\n\nBy route kind:\n\n${tables.kinds}`,
  );
  const failedProbes = Object.entries(probed.failures)
    .map(([status, n]) => `${n} × ${status}`)
    .join(", ");
  section(
    `\`/healthz\` every ${PROBE_INTERVAL_MS} ms during scenario 1 (own process, own connection)`,
    markdownTable([
      {
        "probes due": count(probed.due),
        answered: count(probed.latencies.length),
        "p50 ms": ms(percentile(healthz, 50)),
        "p99 ms": ms(percentile(healthz, 99)),
        "max ms": `${unanswered > 0 ? "≥ " : ""}${ms(percentile(healthz, 100))}`,
        "no answer within 1 s": count(late),
        "non-200": failedProbes || "0",
      },
    ]) +
      "\n\nA probe's latency counts from when it was due: a probe delayed behind a slow one waits on the same connection, and that wait counts." +
      (unanswered > 0 ? ` ${unanswered} probes were still unanswered at the end; they count with the time they had waited.` : ""),
  );

  await stop(server);
  section("Server log during preflight and scenario 1 (LOG_LEVEL=warn)", logSummary(server.output()));

  const p99 = percentile(load.latencies, 99);
  const healthzP99 = percentile(healthz, 99);
  return [
    { name: "errors (scenario 1)", goal: "0", measured: count(load.errors), met: load.errors === 0 },
    { name: "timeouts at 10 s", goal: "0", measured: count(load.timeouts), met: load.timeouts === 0 },
    { name: "5xx apart from 503 with Retry-After", goal: "0", measured: count(fiveHundreds(load)), met: fiveHundreds(load) === 0 },
    { name: "p99 latency", goal: `≤ ${count(TARGETS.p99Ms)} ms`, measured: `${ms(p99)} ms`, met: p99 <= TARGETS.p99Ms && load.latencies.length > 0 },
    { name: "`/healthz` p99", goal: `≤ ${TARGETS.healthzP99Ms} ms`, measured: `${ms(healthzP99)} ms`, met: healthzP99 <= TARGETS.healthzP99Ms },
  ];
}

async function main(): Promise<void> {
  const cpu = cpus();
  console.log(`## bench:load, ${new Date().toISOString().slice(0, 10)}`);
  console.log(
    `\nMachine: ${cpu.length} × ${cpu[0]?.model ?? "unknown CPU"}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB (${(freemem() / 2 ** 30).toFixed(1)} free), ` +
      `Node ${process.version}; load average before the run ${loadavg()
        .map((l) => l.toFixed(2))
        .join(" / ")} (other work on the machine competes for its cores).`,
  );
  console.log(`Data set: ${databasePath}: ${await dataSetLine()}.`);
  console.log(
    `Server: the production build (build ${buildId}) in a child process on 127.0.0.1, SYNC_ENABLED=false, LOG_LEVEL=warn, ` +
      `rate limits raised to ${Number(BENCH_RATE_LIMITS.RATE_LIMIT_PAGES_MAX).toLocaleString("en-US")} per window (RATE_LIMIT_PAGES_MAX, _API_MAX, _LOOKUP_MAX) ` +
      "so that the benchmark measures serving and not the limiter.",
  );
  console.log(
    `Load: autocannon in this process, ${connections} connections, pipelining 1, ${seconds} s per run, requests abandoned after ${TIMEOUT_SECONDS} s (a timeout), ` +
      `headers as Chromium sends them (Accept-Encoding: ${BROWSER_HEADERS["accept-encoding"]}).`,
  );

  const mixTargets = flags["ceiling-only"] ? [] : await mixScenario();

  // Scenario 2: one page against the static ceiling, each server fresh
  const server = await track(startProductionServer(databasePath));
  const page = await fetchPage(server.url, flags.page, "identity");
  const realEncoded = await encodedSize(server.url, flags.page);
  const ceiling = await track(startStaticCeiling(page.body, page.contentType));
  const ceilingEncoded = await encodedSize(ceiling.url, flags.page);
  // A B B A: the other work on a shared machine drifts, and this order cancels a steady drift between the two.
  const warmup = Math.min(5, seconds);
  const halves = seconds >= 2 ? [Math.ceil(seconds / 2), Math.floor(seconds / 2)] : [seconds];
  const pageLoad = (target: ChildServer, label: string, runSeconds: number) =>
    runLoad({ baseUrl: target.url, mix: [{ kind: label, path: flags.page }], connections, seconds: runSeconds, timeoutSeconds: TIMEOUT_SECONDS });
  await pageLoad(server, "server", warmup);
  await pageLoad(ceiling, "ceiling", warmup);
  const realRuns = [await withCpu(server, () => pageLoad(server, "server", halves[0]!))];
  const stillRuns = [await withCpu(ceiling, () => pageLoad(ceiling, "ceiling", halves[0]!))];
  if (halves[1]) {
    stillRuns.push(await withCpu(ceiling, () => pageLoad(ceiling, "ceiling", halves[1]!)));
    realRuns.push(await withCpu(server, () => pageLoad(server, "server", halves[1]!)));
  }
  const pooled = (runs: typeof realRuns) => ({
    result: runs.map((run) => run.result).reduce(mergeLoadFigures),
    serverCpu: runs.some((run) => run.serverCpu === null) ? null : runs.reduce((sum, run) => sum + run.serverCpu!, 0),
    generatorCpu: runs.reduce((sum, run) => sum + run.generatorCpu, 0),
  });
  const real = pooled(realRuns);
  const still = pooled(stillRuns);
  await stop(ceiling);
  await stop(server);
  const rps = (figures: LoadFigures) => figures.latencies.length / figures.seconds;
  const ratio = rps(real.result) / Math.max(rps(still.result), Number.EPSILON);
  const pageRow = (name: string, run: typeof real, encoded: { bytes: number; encoding: string }) => ({
    "": name,
    "requests/s": rps(run.result).toFixed(1),
    "p50 ms": ms(percentile(run.result.latencies, 50)),
    "p99 ms": ms(percentile(run.result.latencies, 99)),
    "non-2xx": nonOk(run.result),
    "timeouts at 10 s": count(run.result.timeouts),
    "server CPU": cores(run.serverCpu),
    "generator CPU": cores(run.generatorCpu),
    "bytes per response": `${count(encoded.bytes)} (${encoded.encoding})`,
  });
  section(
    `Scenario 2: \`${flags.page}\` against the static ceiling, ${connections} connections, ${seconds} s each`,
    `${markdownTable([pageRow("production server", real, realEncoded), pageRow("static ceiling", still, ceilingEncoded)])}\n\n` +
      `Ratio: **${ratio.toFixed(2)}** (goal ≥ ${TARGETS.ceilingRatio}). The ceiling serves the page's ${count(page.body.length)} bytes of HTML, fetched once from the server, ` +
      `from memory through the site's own compression middleware (server/http/compression.ts), without an ETag. Each had ${warmup} s of warm-up, not counted, then ran in two halves in the order server, ceiling, ceiling, server, ` +
      "so that a drift in the machine's other work weighs on both alike." +
      (flags["ceiling-only"] ? "" : " The server was restarted after scenario 1, so no backlog of it remains.") +
      "\n\n" +
      logSummary(server.output()),
  );

  const targets: Target[] = [
    ...mixTargets,
    { name: "cached page / static ceiling", goal: `≥ ${TARGETS.ceilingRatio}`, measured: ratio.toFixed(2), met: ratio >= TARGETS.ceilingRatio },
  ];
  section("Targets (issue 9)", targetTable(targets));
  console.log(`\n${targets.filter((t) => t.met).length} of ${targets.length} targets met.`);
  if (realEncoded.encoding !== ceilingEncoded.encoding || Math.abs(realEncoded.bytes - ceilingEncoded.bytes) > realEncoded.bytes * 0.02) {
    console.log(
      `\nWarning: the server sent ${realEncoded.bytes} bytes (${realEncoded.encoding}) and the ceiling ${ceilingEncoded.bytes} (${ceilingEncoded.encoding}) ` +
        "for the same page: they no longer compress alike, and the ratio compares unlike work.",
    );
  }
}

try {
  await main();
} catch (error) {
  console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
  for (const server of servers) console.error(`\nOutput of the child process ${server.url}:\n${server.output()}`);
  process.exitCode = 1;
} finally {
  await Promise.all([...servers].map((server) => server.stop()));
}
