import { mkdirSync, rmSync } from "node:fs";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { chromium } from "playwright-core";
import { BREAKPOINTS } from "../shared/constants";
import { CHROMIUM_FLAGS, CHROMIUM_PATH } from "./chromium";
import { DEFAULT_DATABASE, siteRoutes, startSite } from "./site";

/**
 * `npm run screenshots [-- --db .bench/scaled.sqlite --out screenshots]`
 *
 * Full-page PNGs of every route at a phone width and at each of the four
 * breakpoints, in the light and the dark theme, from the production build
 * serving real data, for anyone to look at. Requests to anything but the
 * local server are refused, as in the browser tests.
 */
const { values } = parseArgs({
  options: {
    db: { type: "string", default: DEFAULT_DATABASE },
    out: { type: "string", default: resolve(import.meta.dirname, "../screenshots") },
  },
});
const WIDTHS = { phone: 390, ...BREAKPOINTS };
const THEMES = ["light", "dark"] as const;
const CHART_ANIMATION_MS = 1_200;

rmSync(values.out, { recursive: true, force: true });
mkdirSync(values.out, { recursive: true });
const server = await startSite(values.db);
const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_FLAGS });
let count = 0;
try {
  const routes = await siteRoutes(server);
  for (const theme of THEMES) {
    for (const [name, width] of Object.entries(WIDTHS)) {
      const context = await browser.newContext({ viewport: { width, height: 900 }, colorScheme: theme, serviceWorkers: "block" });
      await context.route(
        (url) => new URL(url).origin !== server.url,
        (route) => route.abort("blockedbyclient"),
      );
      const page = await context.newPage();
      for (const route of routes) {
        await page.goto(`${server.url}${route}`, { waitUntil: "networkidle" });
        await page.locator('#root[data-hydration="hydrated"]').waitFor({ state: "attached" });
        // Charts draw once they come near the viewport: bring each into view and wait for its canvas.
        const charts = await page.getByTestId("chart").all();
        for (const chart of charts) {
          await chart.scrollIntoViewIfNeeded();
          await chart.locator("canvas").waitFor();
        }
        // A chart of few points animates its drawing (ECharts' default, 1 s): a shot before its end shows it half drawn.
        if (charts.length > 0) await page.waitForTimeout(CHART_ANIMATION_MS);
        await page.evaluate(() => window.scrollTo(0, 0));
        const file = `${
          route === "/"
            ? "home"
            : route
                .slice(1)
                .split("/")
                .map((part) => part.slice(0, 40).replace(/[^a-z0-9-]+/gi, "_"))
                .join("--")
        }.${name}-${width}.${theme}.png`;
        await page.screenshot({ path: resolve(values.out, file), fullPage: true });
        count++;
      }
      await context.close();
    }
  }
} finally {
  await browser.close();
  await server.close();
}
console.log(`${count} screenshots in ${values.out}`);
