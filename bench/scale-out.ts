import { parseArgs } from "node:util";
import { createPostgresPool, postgresKysely } from "../server/db/postgres/pool";
import { freeLoopbackPort, startChildServer, type ChildServer } from "./load/child-server";
import { count, markdownTable, ms, percentile, section } from "./load/report";
import { runLoad, type LoadFigures } from "./load/run-load";
import { BENCH_RATE_LIMITS, PROJECT_ROOT, productionServerCommand, readBuildId } from "./load/servers";
import { buildUrlMix, type MixUrl } from "./load/url-mix";

/**
 * `DATABASE_URL=postgres://… npm run bench:scale-out [-- --connections 64 --duration 20 --nodes 2]`
 *
 * Throughput of one web node against several on the same PostgreSQL
 * database (issue 13, item 6), a benchmark and never a test. Each node is
 * the production build (`SERVER_ROLE=web`) on a loopback port; the load is
 * the URL mix of `npm run bench:load`, the same connections in total in
 * both runs, split evenly across the nodes in the second (as a load
 * balancer would). On one machine the nodes, PostgreSQL and the load
 * generator share the cores: the ratio says how much a second process adds
 * there, not what a second machine would.
 */
const { values: flags } = parseArgs({
  options: {
    connections: { type: "string", default: "64" },
    duration: { type: "string", default: "20" },
    nodes: { type: "string", default: "2" },
  },
});
const connections = Number(flags.connections);
const seconds = Number(flags.duration);
const nodeCount = Number(flags.nodes);
const url = process.env.DATABASE_URL;
if (!url) {
  console.error("DATABASE_URL must name a PostgreSQL database with data imported (`DATABASE_URL=… npm run sync -- --mirror ../shared/data`).");
  process.exit(2);
}
if (![connections, seconds, nodeCount].every((n) => Number.isInteger(n) && n >= 1) || connections < nodeCount) {
  console.error("--connections, --duration and --nodes must be whole numbers ≥ 1, with at least one connection per node");
  process.exit(2);
}
const buildId = readBuildId();

async function startWebNode(): Promise<ChildServer> {
  const port = await freeLoopbackPort();
  return startChildServer({
    name: "a web node",
    command: productionServerCommand(),
    cwd: PROJECT_ROOT,
    port,
    readyPath: "/healthz",
    startTimeoutMs: 300_000,
    env: { NODE_ENV: "production", HOST: "127.0.0.1", PORT: String(port), DATABASE_URL: url!, SERVER_ROLE: "web", LOG_LEVEL: "warn", ...BENCH_RATE_LIMITS },
  });
}

/** The same load spread over `nodes`: connections split evenly, run at the same time. */
async function loadOn(nodes: readonly ChildServer[], mix: readonly MixUrl[]): Promise<LoadFigures[]> {
  return Promise.all(
    nodes.map((node, i) =>
      runLoad({
        baseUrl: node.url,
        mix,
        connections: Math.floor(connections / nodes.length) + (i < connections % nodes.length ? 1 : 0),
        seconds,
        timeoutSeconds: 10,
      }),
    ),
  );
}

function row(label: string, runs: readonly LoadFigures[]) {
  const latencies = runs.flatMap((run) => run.latencies);
  const ok = runs.reduce((sum, run) => sum + [...run.byStatus].filter(([status]) => status < 400).reduce((n, [, c]) => n + c, 0), 0);
  return {
    row: {
      setup: label,
      "answers/s": count(latencies.length / seconds),
      "2xx/3xx": count(ok),
      // Shed by the admission line (SERVE_QUEUE_MS, SERVE_QUEUE_MAX): fast answers that inflate answers/s.
      "503 shed": count(runs.reduce((sum, run) => sum + (run.byStatus.get(503) ?? 0), 0)),
      "other 4xx/5xx": count(
        runs.reduce((sum, run) => sum + [...run.byStatus].filter(([status]) => status >= 400 && status !== 503).reduce((n, [, c]) => n + c, 0), 0),
      ),
      "p50 ms": ms(percentile(latencies, 50)),
      "p95 ms": ms(percentile(latencies, 95)),
      "p99 ms": ms(percentile(latencies, 99)),
      "errors+timeouts": runs.reduce((sum, run) => sum + run.errors + run.timeouts, 0),
    },
    perSecond: latencies.length / seconds,
  };
}

const nodes: ChildServer[] = [];
try {
  const db = postgresKysely(createPostgresPool({ url: url!, size: 2, readOnly: true, applicationName: "threat-radar bench" }));
  const mix = await buildUrlMix(db, buildId).finally(() => db.destroy());
  for (let i = 0; i < nodeCount; i++) nodes.push(await startWebNode());

  // Warm both nodes' caches alike, so neither run pays for the first renders.
  await loadOn(nodes, mix);
  const one = row("1 web node", await loadOn(nodes.slice(0, 1), mix));
  const many = row(`${nodeCount} web nodes`, await loadOn(nodes, mix));
  section(
    `Throughput, 1 web node vs ${nodeCount} (PostgreSQL, ${connections} connections, ${seconds} s each, ${mix.length} URLs)`,
    `${markdownTable([one.row, many.row])}\n\n${nodeCount} nodes / 1 node: **${(many.perSecond / one.perSecond).toFixed(2)}×** answers per second.`,
  );
} finally {
  await Promise.all(nodes.map((node) => node.stop()));
}
