import { existsSync, readFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import pino from "pino";
import { createApp } from "../server/app";
import { loadEnv } from "../server/config/env";
import { openSqliteDatabase } from "../server/db/connection";
import { migrateToLatest } from "../server/db/migrate";
import { createCveService } from "../server/cve/service";
import { countCves, queryCveRows } from "../server/cve/list";
import { queryCveStats } from "../server/cve/stats";
import { loadPageOnServer, rootLoaderOnServer } from "../server/pages/loaders";
import { readBuildInfo, readClientAssets } from "../server/ssr/assets";
import { loadBuiltRenderer } from "../server/ssr/load-renderer";
import { cveListParamsSchema, type CveListParams } from "../shared/cve/list-params";
import { parseQuery } from "../shared/query/params";
import { gzipSize, measure, ms, printTable, timeOnce } from "./http-bench";

/**
 * `npm run bench [-- --db .bench/scaled.sqlite --runs 200]`
 *
 * Measures what users wait for, on the production build (`npm run build`)
 * and a database made by bench/generate.ts (300,000 CVEs): server-render time
 * of the CVE list (default and filtered) and of CVE pages, API latency for
 * filter / sort / search combinations, where the list's time goes (row page,
 * count and chart statistics, cold and cached), and the bytes the browser
 * receives. Nothing here is asserted; it prints figures.
 */
const projectRoot = resolve(import.meta.dirname, "..");
const { values } = parseArgs({
  options: {
    db: { type: "string", default: resolve(projectRoot, ".bench/scaled.sqlite") },
    runs: { type: "string", default: "200" },
  },
});
const runs = Number(values.runs);
if (!existsSync(values.db)) {
  console.error(`No database at ${values.db}: run \`npx tsx bench/generate.ts --out ${values.db}\` first.`);
  process.exit(2);
}

const LIST_VIEWS: Array<[string, string]> = [
  ["default (priority)", ""],
  ["KEV only", "kev=1"],
  ["critical + exploit, by EPSS", "severity=critical&exploit=1&sort=epss"],
  ["full text 'remote code execution'", "q=remote+code+execution"],
  ["vendor Microsoft, newest", "vendor=microsoft&sort=published"],
  ["CWE-79, page 20", "cwe=CWE-79&page=20"],
  ["EPSS ≥ 0.5, CVSS ≥ 9", "epss_min=0.5&cvss_min=9"],
  ["published in 2024-03, by CVSS asc", "published_from=2024-03-01&published_to=2024-03-31&sort=cvss&dir=asc"],
];
const DETAIL_IDS = ["CVE-2024-3400", "CVE-2023-34362", "CVE-2021-44228"];

const database = openSqliteDatabase(values.db);
await migrateToLatest(database.db);

const rows = await database.db.selectFrom("cves").select((eb) => eb.fn.countAll<number>().as("n")).executeTakeFirstOrThrow();
console.log(`Database ${values.db}: ${Number(rows.n).toLocaleString("en-US")} CVEs; ${runs} requests per scenario, sequential, loopback.`);

// Where the list's time goes: each query alone, cold, then the cached service.
const breakdown = [];
for (const [name, query] of LIST_VIEWS) {
  const { params } = parseQuery(cveListParamsSchema, new URLSearchParams(query));
  const p = params as CveListParams;
  const service = createCveService(database.db);
  breakdown.push({
    view: name,
    "rows ms": ms(await timeOnce(() => queryCveRows(database.db, p))),
    "count ms (cold)": ms(await timeOnce(() => countCves(database.db, p))),
    "stats ms (cold)": ms(await timeOnce(() => queryCveStats(database.db, p))),
    "service ms (cold)": ms(await timeOnce(() => Promise.all([service.list(p), service.stats(p)]))),
    "service ms (cached)": ms(await timeOnce(() => Promise.all([service.list(p), service.stats(p)]))),
  });
}
printTable("Where the CVE list's time goes (one call each)", breakdown);

const clientDir = resolve(projectRoot, "dist/client");
const renderer = await loadBuiltRenderer(resolve(projectRoot, "dist/server"), { loadPage: loadPageOnServer, rootLoader: rootLoaderOnServer });
const app = createApp({
  env: loadEnv({ NODE_ENV: "production", LOG_LEVEL: "silent", RATE_LIMIT_PAGES_MAX: "1000000", RATE_LIMIT_API_MAX: "1000000" }),
  db: database.db,
  logger: pino({ level: "silent" }),
  getRenderer: async () => renderer,
  routePatterns: renderer.routePatterns,
  assets: readClientAssets(clientDir),
  build: readBuildInfo(clientDir),
  clientDir,
});
const server = app.listen(0, "127.0.0.1");
await new Promise((done) => server.once("listening", done));
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

const ssr = [];
for (const [name, query] of LIST_VIEWS) ssr.push(await measure(`/cve-radar ${name}`, `${base}/cve-radar${query ? `?${query}` : ""}`, runs));
for (const id of DETAIL_IDS) ssr.push(await measure(`/cve-radar/${id}`, `${base}/cve-radar/${id}`, runs));
printTable(
  "Server render, whole HTML response (ms)",
  ssr.map((r) => ({ page: r.name, p50: ms(r.p50), p95: ms(r.p95), max: ms(r.max), "HTML bytes": r.bytes })),
);

const api = [];
for (const [name, query] of LIST_VIEWS) api.push(await measure(`/api/v1/cves ${name}`, `${base}/api/v1/cves${query ? `?${query}` : ""}`, runs));
for (const [name, query] of LIST_VIEWS.slice(0, 3)) api.push(await measure(`/api/v1/cves/stats ${name}`, `${base}/api/v1/cves/stats${query ? `?${query}` : ""}`, runs));
for (const id of DETAIL_IDS) api.push(await measure(`/api/v1/cves/${id}`, `${base}/api/v1/cves/${id}`, runs));
printTable("API latency (ms)", api.map((r) => ({ endpoint: r.name, p50: ms(r.p50), p95: ms(r.p95), max: ms(r.max) })));

const manifest = JSON.parse(readFileSync(join(clientDir, ".vite/manifest.json"), "utf8")) as Record<string, { file: string; css?: string[] }>;
const assets = readClientAssets(clientDir);
const sizeOf = (files: string[]) => files.reduce((sum, file) => sum + gzipSize(readFileSync(join(clientDir, file))), 0);
const chartChunk = Object.values(manifest).find((chunk) => chunk.file.includes("EChart"))?.file;
const html = await (await fetch(`${base}/cve-radar`)).text();
const jsFor = (pageId: string) => [assets.entry, ...assets.preloadsFor([pageId])].map((file) => file.slice(1));
printTable("What the browser receives for /cve-radar (gzip bytes)", [
  { resource: "HTML", bytes: gzipSize(html) },
  { resource: "CSS", bytes: sizeOf(assets.stylesheets.map((file) => file.slice(1))) },
  { resource: "JS at load (entry + page chunks)", bytes: sizeOf(jsFor("cve-list")) },
  { resource: "JS after hydration (ECharts chunk)", bytes: chartChunk ? sizeOf([chartChunk]) : 0 },
]);

server.close();
await database.close();
