import { mkdirSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { launch } from "chrome-launcher";
import lighthouse from "lighthouse";
import { CHROMIUM_FLAGS, CHROMIUM_PATH } from "./chromium";
import { DEFAULT_DATABASE, siteRoutes, startSite } from "./site";

/**
 * `npm run lighthouse [-- --runs 5 --db .bench/scaled.sqlite --preset mobile|desktop]`
 *
 * Lighthouse (Chromium from Debian) against the production build serving
 * real data, every route several times; prints the median of each category
 * and of the metrics behind performance, and keeps every report as JSON in
 * .bench/lighthouse/. Medians, because a 2-core machine swings run to run.
 */
const { values } = parseArgs({
  options: {
    runs: { type: "string", default: "5" },
    db: { type: "string", default: DEFAULT_DATABASE },
    preset: { type: "string", default: "mobile" },
  },
});
const runs = Number(values.runs);
const preset = values.preset === "desktop" ? "desktop" : "mobile";
const reportDir = resolve(import.meta.dirname, "../.bench/lighthouse");
mkdirSync(reportDir, { recursive: true });

const CATEGORIES = ["performance", "accessibility", "best-practices", "seo"] as const;
const METRICS = {
  FCP: "first-contentful-paint",
  LCP: "largest-contentful-paint",
  TBT: "total-blocking-time",
  CLS: "cumulative-layout-shift",
  SI: "speed-index",
} as const;

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

/** Retried a few times: Lighthouse sometimes loses the trace of a page load (NO_NAVSTART) and says to run again. */
const ATTEMPTS = 3;

async function audit(url: string, port: number) {
  for (let attempt = 1; ; attempt++) {
    const result = await lighthouse(url, {
      port,
      output: "json",
      logLevel: "error",
      onlyCategories: [...CATEGORIES],
      ...(preset === "desktop"
        ? { formFactor: "desktop", screenEmulation: { mobile: false, width: 1350, height: 940, deviceScaleFactor: 1, disabled: false } }
        : {}),
    });
    const error = result ? result.lhr.runtimeError : { code: "NO_RESULT", message: "Lighthouse returned nothing" };
    if (result && !error) return result;
    if (attempt === ATTEMPTS) throw new Error(`${url}: ${error?.code} ${error?.message}`);
    console.error(`${url}: ${error?.code}, trying again`);
  }
}

const server = await startSite(values.db);
const chrome = await launch({ chromePath: CHROMIUM_PATH, chromeFlags: CHROMIUM_FLAGS });
const rows = [];
const belowTarget: string[] = [];
try {
  for (const route of await siteRoutes(server)) {
    const scores: Record<string, number[]> = Object.fromEntries([...CATEGORIES, ...Object.keys(METRICS)].map((key) => [key, []]));
    for (let run = 1; run <= runs; run++) {
      const result = await audit(`${server.url}${route}`, chrome.port);
      const { lhr } = result;
      writeFileSync(resolve(reportDir, `${preset}-${route.replace(/[^a-z0-9]+/gi, "_") || "home"}-${run}.json`), result.report as string);
      for (const category of CATEGORIES) scores[category]!.push(Math.round((lhr.categories[category]?.score ?? 0) * 100));
      for (const [label, id] of Object.entries(METRICS)) scores[label]!.push(lhr.audits[id]?.numericValue ?? Number.NaN);
      for (const category of CATEGORIES) {
        for (const ref of lhr.categories[category]?.auditRefs ?? []) {
          const audit = lhr.audits[ref.id];
          if (ref.weight > 0 && audit && audit.score !== null && audit.score < 1 && category !== "performance") {
            belowTarget.push(`${route} [${category}] ${audit.id}: ${audit.title}`);
          }
        }
      }
    }
    rows.push({
      route,
      ...Object.fromEntries(CATEGORIES.map((category) => [category, median(scores[category]!)])),
      "FCP ms": Math.round(median(scores.FCP!)),
      "LCP ms": Math.round(median(scores.LCP!)),
      "TBT ms": Math.round(median(scores.TBT!)),
      CLS: median(scores.CLS!).toFixed(3),
      "SI ms": Math.round(median(scores.SI!)),
    });
  }
} finally {
  chrome.kill();
  await server.close();
}

console.log(`\nLighthouse ${preset}, median of ${runs} runs per route (reports in ${reportDir})`);
console.table(rows);
if (belowTarget.length > 0) {
  console.log("\nAudits that failed in some run (accessibility, best practices, SEO):");
  for (const line of new Set(belowTarget)) console.log(`- ${line}`);
}
