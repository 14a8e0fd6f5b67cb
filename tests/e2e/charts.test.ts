import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { describe, expect, inject, it } from "vitest";
import { CHART_RESIZE_DEBOUNCE_MS } from "../../shared/constants";
import { freezeClock, gotoHydrated, mainNavLink, openSession, waitForTitle, type E2eSession } from "./helpers/browser";
import { documentStatus } from "./helpers/console";
import { PROJECT_ROOT } from "./helpers/server";
import { e2eSite } from "./helpers/site";

/**
 * The chart component (shared/ui/charts) in a real browser on the snapshot
 * data: ECharts is loaded only where a chart is drawn, a resize redraws once
 * the resizing has stopped for 150 ms, and exports never touch the network.
 */

/** The lazily loaded chunk that carries ECharts, from the client build's manifest. */
const manifest = JSON.parse(readFileSync(join(PROJECT_ROOT, "dist/client/.vite/manifest.json"), "utf8")) as Record<string, { file: string }>;
const ECHARTS_CHUNK = `/${manifest["shared/ui/charts/EChart.tsx"]!.file}`;

const site = e2eSite({ DATABASE_PATH: inject("snapshotDatabase") });

async function withSession(run: (s: E2eSession) => Promise<void>, viewport = { width: 1440, height: 900 }) {
  const s = await openSession(site.browser, { viewport });
  try {
    await run(s);
  } finally {
    await s.close();
  }
}

const echartsRequests = (s: E2eSession) => s.requests.filter((request) => new URL(request.url()).pathname === ECHARTS_CHUNK);

const START = new Date("2026-03-01T12:00:00Z").getTime();
const FIRST_CHART = '[data-testid="chart"] .chart__canvas[role="img"]';

describe("charts", () => {
  it("a page without a chart never requests the ECharts chunk; the first chart does, once", () =>
    withSession(async (s) => {
      const { page } = s;
      expect(ECHARTS_CHUNK).toMatch(/^\/assets\/EChart-[\w-]+\.js$/);
      // An indicator page (no chart at all), a CVE list with no match (imports the chart, draws none), a 404.
      await gotoHydrated(page, `${site.server.url}/ioc-radar/8.8.8.8`);
      await gotoHydrated(page, `${site.server.url}/cve-radar?vendor=no-such-vendor-e2e`);
      expect(await page.locator(".results-bar strong").textContent()).toBe("0");
      expect(await page.getByTestId("chart").count()).toBe(0);
      const missing = `${site.server.url}/no/such/page`;
      await gotoHydrated(page, missing);
      expect(echartsRequests(s)).toEqual([]);

      await gotoHydrated(page, `${site.server.url}/ioc-radar/8.8.8.8`);
      await mainNavLink(page, "CVE radar").click();
      await waitForTitle(page, "CVE radar · Threat Radar");
      await page.locator(`${FIRST_CHART} canvas`).first().waitFor();
      expect(echartsRequests(s)).toHaveLength(1);
      expect(s.console.problems([documentStatus(missing, 404)])).toEqual([]);
    }));

  it(`redraws after a resize only once resizing has stopped for ${CHART_RESIZE_DEBOUNCE_MS} ms`, () =>
    withSession(
      async (s) => {
        const { page } = s;
        // The page's timers run only when the test moves time, from the first script on.
        await freezeClock(page, START);
        await gotoHydrated(page, `${site.server.url}/cve-radar`);
        const canvas = page.locator(`${FIRST_CHART} canvas`).first();
        await expect
          .poll(async () => {
            await page.clock.runFor(100);
            return canvas.count();
          })
          .toBe(1);
        // Whatever the first drawing left scheduled (the observer's first call) has run.
        await page.clock.runFor(1_000);
        expect(await drawnWidth(page)).toBe(await containerWidth(page));
        await watchContainer(page);

        // 1400 → 1300 px (below the lg breakpoint, so the layout stays): the charts narrow with the page.
        const before = await drawnWidth(page);
        await resizeAndWaitForObserver(page, 1300);
        const afterFirst = await containerWidth(page);
        expect(afterFirst).toBeLessThan(before);
        expect(await drawnWidth(page)).toBe(before);
        await page.clock.runFor(CHART_RESIZE_DEBOUNCE_MS - 1);
        expect(await drawnWidth(page)).toBe(before);
        await page.clock.runFor(1);
        expect(await drawnWidth(page)).toBe(afterFirst);

        // Two resizes 100 ms apart: one redraw, 150 ms after the last.
        await resizeAndWaitForObserver(page, 1200);
        await page.clock.runFor(100);
        expect(await drawnWidth(page)).toBe(afterFirst);
        await resizeAndWaitForObserver(page, 1100);
        const last = await containerWidth(page);
        expect(last).not.toBe(afterFirst);
        await page.clock.runFor(CHART_RESIZE_DEBOUNCE_MS - 1);
        expect(await drawnWidth(page)).toBe(afterFirst);
        await page.clock.runFor(1);
        expect(await drawnWidth(page)).toBe(last);

        // Down to one column on a narrow window: the charts follow it and never widen the page.
        await resizeAndWaitForObserver(page, 800);
        await page.clock.runFor(CHART_RESIZE_DEBOUNCE_MS);
        expect(await drawnWidth(page)).toBe(await containerWidth(page));
        expect(await containerWidth(page)).toBeLessThan(800);
        expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBe(800);
        expect(s.console.problems()).toEqual([]);
      },
      { width: 1400, height: 900 },
    ));

  it("a chart below the fold loads ECharts only when it scrolls into view", () =>
    withSession(
      async (s) => {
        const { page } = s;
        await gotoHydrated(page, `${site.server.url}/cve-radar?kev=1`);
        const first = page.getByTestId("chart").first();
        expect(await first.evaluate((chart) => chart.getBoundingClientRect().top - window.innerHeight)).toBeGreaterThan(0);
        await page.waitForLoadState("networkidle");
        expect(echartsRequests(s)).toEqual([]);
        expect(await page.locator('[data-testid="chart"] canvas').count()).toBe(0);

        await first.scrollIntoViewIfNeeded();
        await first.locator("canvas").waitFor();
        expect(echartsRequests(s)).toHaveLength(1);
        expect(s.console.problems()).toEqual([]);
      },
      { width: 390, height: 700 },
    ));

  it("PNG and CSV exports are local downloads: no request at all, even offline", () =>
    withSession(async (s) => {
      const { page, context } = s;
      // The one request the page makes on its own after loading: the build manifest, about 1 s after start.
      const manifestPrefetch = page.waitForRequest((request) => new URL(request.url()).pathname.startsWith("/_app/builds/meta/"));
      await gotoHydrated(page, `${site.server.url}/cve-radar?kev=1`);
      const vendors = page.locator('[data-testid="chart"]', { hasText: "Top vendors" });
      await vendors.locator("canvas").waitFor();
      await (await manifestPrefetch).response();
      await page.waitForLoadState("networkidle");
      const before = s.requests.length;
      await context.setOffline(true);

      const [png] = await Promise.all([page.waitForEvent("download"), vendors.getByRole("button", { name: "Export PNG" }).click()]);
      expect(png.suggestedFilename()).toBe("top-vendors.png");
      expect(
        readFileSync((await png.path())!)
          .subarray(1, 4)
          .toString(),
      ).toBe("PNG");
      const [csv] = await Promise.all([page.waitForEvent("download"), vendors.getByRole("button", { name: "Export CSV" }).click()]);
      expect(csv.suggestedFilename()).toBe("top-vendors.csv");
      expect(readFileSync((await csv.path())!, "utf8").split("\r\n")[0]).toBe("Vendor,CVEs");

      expect(
        s.requests
          .slice(before)
          .map((request) => request.url())
          .join("\n"),
      ).toBe("");
      expect(s.console.problems()).toEqual([]);
    }));
});

/** The width ECharts drew the first chart's canvas at (CSS pixels). */
function drawnWidth(page: Page): Promise<number> {
  return page
    .locator(`${FIRST_CHART} canvas`)
    .first()
    .evaluate((canvas) => Math.round(parseFloat((canvas as HTMLCanvasElement).style.width)));
}

function containerWidth(page: Page): Promise<number> {
  return page
    .locator(FIRST_CHART)
    .first()
    .evaluate((element) => Math.round(element.getBoundingClientRect().width));
}

/**
 * Records the chart container's size as a ResizeObserver sees it. This
 * observer is created after the chart's, so by the time it has seen a size
 * the chart's observer has been told too.
 */
async function watchContainer(page: Page): Promise<void> {
  await page
    .locator(FIRST_CHART)
    .first()
    .evaluate((element) => {
      const seen: number[] = [];
      (window as unknown as { __chartSizes: number[] }).__chartSizes = seen;
      new ResizeObserver((entries) => seen.push(Math.round(entries[0]!.contentRect.width))).observe(element);
    });
  await expect.poll(() => observedSizes(page)).toBeGreaterThan(0);
}

/** How many sizes the test's observer has seen (polled from here: page-side polling waits on the fake clock). */
function observedSizes(page: Page): Promise<number> {
  return page.evaluate(() => (window as unknown as { __chartSizes: number[] }).__chartSizes.length);
}

async function resizeAndWaitForObserver(page: Page, width: number): Promise<void> {
  const seen = await observedSizes(page);
  await page.setViewportSize({ width, height: 900 });
  await expect.poll(() => observedSizes(page)).toBeGreaterThan(seen);
}
