import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import {
  documentMarker,
  freezeClock,
  gotoHydrated,
  mainNavLink,
  openSession,
  setDocumentMarker,
  waitForHydration,
  waitForTitle,
  type E2eSession,
} from "./helpers/browser";
import { abortedLoad } from "./helpers/console";
import { e2eSite } from "./helpers/site";

/**
 * A page chunk that fails to load (an old tab after a deployment) reloads the
 * page once; a stored marker stops a second reload within 10 s and the error
 * screen shows instead (client/runtime/chunk-reload.ts).
 */

const CHUNK = "**/assets/CveListPage-*.js";
const MARKER_KEY = "threat-radar:chunk-reload-at";
const START = new Date("2026-03-01T12:00:00Z").getTime();

const site = e2eSite();

async function withSession(run: (s: E2eSession) => Promise<void>) {
  const s = await openSession(site.browser);
  try {
    await run(s);
  } finally {
    await s.close();
  }
}

/** Clicks the "CVE radar" nav link and waits for the page to reload itself and hydrate again. */
async function clickAndExpectReload(page: Page): Promise<void> {
  await setDocumentMarker(page);
  const reloaded = page.waitForEvent("load");
  await mainNavLink(page, "CVE radar").click();
  await reloaded;
  await waitForHydration(page);
  expect(await documentMarker(page)).toBeUndefined();
}

async function expectErrorScreenAfterClick(page: Page): Promise<void> {
  await mainNavLink(page, "CVE radar").click();
  const screen = page.locator("main.error-screen");
  await screen.waitFor();
  expect(await screen.locator("h1").textContent()).toBe("Something went wrong");
  expect(await screen.getAttribute("data-status")).toBe("500");
  expect(await screen.getByRole("link", { name: "Back to Home" }).isVisible()).toBe(true);
  await waitForTitle(page, "Something went wrong · Threat Radar");
}

const chunkFailed = abortedLoad((url) => /\/assets\/CveListPage-[^/]+\.js$/.test(new URL(url).pathname));

describe("failed page chunk", () => {
  // Both run under a frozen fake clock, so "within 10 s" does not depend on how fast the machine is.
  it("reloads the page once, and not a second time within 10 s: the error screen shows instead", async () => {
    await withSession(async (s) => {
      const { page } = s;
      await freezeClock(page, START);
      const aborted: string[] = [];
      await s.context.route(CHUNK, async (route) => {
        aborted.push(route.request().url());
        await route.abort("failed");
      });
      await gotoHydrated(page, `${site.server.url}/`);
      expect(await page.evaluate((key) => sessionStorage.getItem(key), MARKER_KEY)).toBeNull();

      await clickAndExpectReload(page);
      expect(page.url()).toBe(`${site.server.url}/`);
      expect(s.documentLoads()).toEqual([`${site.server.url}/`, `${site.server.url}/`]);
      expect(Number(await page.evaluate((key) => sessionStorage.getItem(key), MARKER_KEY))).toBe(START);

      await page.clock.fastForward(9_999);
      await setDocumentMarker(page);
      await expectErrorScreenAfterClick(page);
      expect(await documentMarker(page)).toBe(1);
      expect(s.documentLoads()).toHaveLength(2);
      expect(aborted).toHaveLength(2);

      // The two aborted chunk loads are the only console errors.
      expect(s.console.problems([chunkFailed])).toEqual([]);
      expect(s.console.errors.filter(chunkFailed)).toHaveLength(2);
    });
  });

  it("reloads again once the 10 s guard has passed", async () => {
    await withSession(async (s) => {
      const { page } = s;
      await freezeClock(page, START);
      await s.context.route(CHUNK, (route) => route.abort("failed"));
      await gotoHydrated(page, `${site.server.url}/`);

      await clickAndExpectReload(page);
      await page.clock.fastForward(10_000);
      await clickAndExpectReload(page);
      expect(s.documentLoads()).toEqual([`${site.server.url}/`, `${site.server.url}/`, `${site.server.url}/`]);
      expect(Number(await page.evaluate((key) => sessionStorage.getItem(key), MARKER_KEY))).toBe(START + 10_000);
    });
  });

  it("the same page loads normally when its chunk is there", async () => {
    await withSession(async (s) => {
      await gotoHydrated(s.page, `${site.server.url}/`);
      await setDocumentMarker(s.page);
      await mainNavLink(s.page, "CVE radar").click();
      await waitForTitle(s.page, "CVE radar · Threat Radar");
      expect(await documentMarker(s.page)).toBe(1);
      expect(s.requests.some((request) => /\/assets\/CveListPage-[^/]+\.js$/.test(request.url()))).toBe(true);
      expect(s.console.problems()).toEqual([]);
    });
  });
});
