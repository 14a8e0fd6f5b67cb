import { describe, expect, inject, it } from "vitest";
import { BREAKPOINTS } from "../../shared/constants";
import { gotoHydrated, openSession } from "./helpers/browser";
import { e2eSite } from "./helpers/site";

/** The layouts really change at the spec's breakpoints (client/styles/app.css, shared/constants.ts). */

const site = e2eSite({ DATABASE_PATH: inject("snapshotDatabase") });

async function boxesAt(width: number, path: string, selectors: string[]) {
  const s = await openSession(site.browser, { viewport: { width, height: 900 } });
  try {
    await gotoHydrated(s.page, `${site.server.url}${path}`);
    const boxes = await Promise.all(selectors.map(async (selector) => (await s.page.locator(selector).first().boundingBox())!));
    const overflow = await s.page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    const headerShown = await s.page.locator("table.data-table--cards thead").first().isVisible();
    expect(s.console.problems()).toEqual([]);
    return { boxes, overflow, headerShown };
  } finally {
    await s.close();
  }
}

describe("breakpoints", () => {
  it.each(["/cve-radar", "/ioc-radar"])("%s: cards below sm, a table from sm, never wider than the window", async (path) => {
    const phone = await boxesAt(BREAKPOINTS.sm - 1, path, ["main"]);
    expect(phone.headerShown).toBe(false);
    expect(phone.overflow).toBe(0);
    const small = await boxesAt(BREAKPOINTS.sm, path, ["main"]);
    expect(small.headerShown).toBe(true);
  });

  it.each(["/cve-radar", "/ioc-radar"])("%s: filters above the results below lg, a sidebar beside them from lg", async (path) => {
    const medium = await boxesAt(BREAKPOINTS.lg - 1, path, ["form.filters", ".results-bar"]);
    const [mediumFilters, mediumResults] = medium.boxes;
    expect(mediumResults!.y).toBeGreaterThan(mediumFilters!.y + mediumFilters!.height);

    const large = await boxesAt(BREAKPOINTS.lg, path, ["form.filters", ".results-bar"]);
    const [largeFilters, largeResults] = large.boxes;
    expect(largeResults!.x).toBeGreaterThanOrEqual(largeFilters!.x + largeFilters!.width);
    expect(large.overflow).toBe(0);
  });

  it("CVE pages: two columns from md, three from xl", async () => {
    const columns = async (width: number) => {
      const s = await openSession(site.browser, { viewport: { width, height: 900 } });
      try {
        await gotoHydrated(s.page, `${site.server.url}/cve-radar/CVE-2024-3400`);
        return await s.page
          .locator(".detail-grid")
          .first()
          .evaluate((grid) => getComputedStyle(grid).gridTemplateColumns.split(" ").length);
      } finally {
        await s.close();
      }
    };
    expect(await columns(BREAKPOINTS.md - 1)).toBe(1);
    expect(await columns(BREAKPOINTS.md)).toBe(2);
    expect(await columns(BREAKPOINTS.xl)).toBe(3);
  });
});
