import { e2eSite } from "./helpers/site";
import type { Request } from "playwright-core";
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

/**
 * The new-build watcher (client/runtime/build-watch.ts) under Playwright's
 * fake clock: the manifest prefetch about 1 s after start, the hourly
 * latest.json check, the notice, and the full page load it turns the next
 * navigation into.
 */

const START = new Date("2026-03-01T08:00:00Z").getTime();
const HOUR = 3_600_000;

const site = e2eSite();

/** A session whose clock is frozen from the start: timers fire only when the test moves time. */
async function withFrozenClock(run: (s: E2eSession) => Promise<void>) {
  const s = await openSession(site.browser);
  try {
    await freezeClock(s.page, START);
    await run(s);
  } finally {
    await s.close();
  }
}

const isManifest = (request: Request) => new URL(request.url()).pathname.startsWith("/_app/builds/meta/");
const isLatest = (request: Request) => new URL(request.url()).pathname === "/_app/builds/latest.json";

describe("new build watcher", () => {
  it("prefetches this build's manifest 1 s after start (not at 999 ms)", async () => {
    await withFrozenClock(async (s) => {
      const { page } = s;
      // Record fetch() calls inside the page, synchronously, so "not yet" can be checked without waiting.
      await page.addInitScript(() => {
        const calls: string[] = [];
        const original = window.fetch.bind(window);
        Object.assign(window, { __e2eFetches: calls });
        window.fetch = (input, init) => {
          calls.push(typeof input === "string" ? input : input instanceof URL ? input.href : input.url);
          return original(input, init);
        };
      });
      const manifestFetches = () =>
        page.evaluate(() => (window as unknown as { __e2eFetches: string[] }).__e2eFetches.filter((url) => url.includes("/_app/builds/meta/")));
      await gotoHydrated(page, `${site.server.url}/`);
      expect(await manifestFetches()).toEqual([]);

      await page.clock.fastForward(999);
      expect(await manifestFetches()).toEqual([]);
      expect(s.requests.filter(isManifest)).toEqual([]);

      const manifest = page.waitForResponse((response) => isManifest(response.request()));
      await page.clock.fastForward(1);
      const response = await manifest;
      expect(await manifestFetches()).toHaveLength(1);
      expect(response.url()).toBe(`${site.server.url}/_app/builds/meta/${encodeURIComponent(site.server.buildId)}.json`);
      expect(response.status()).toBe(200);
      expect((await response.json()) as { id: string }).toMatchObject({ id: site.server.buildId });
      expect(s.requests.filter(isManifest)).toHaveLength(1);
      expect(s.requests.filter(isLatest)).toEqual([]);
      expect(s.console.problems()).toEqual([]);
    });
  });

  it("a changed latest.json id shows the new-version notice, and the next navigation is a full page load", async () => {
    await withFrozenClock(async (s) => {
      const { page } = s;
      await s.context.route("**/_app/builds/latest.json*", (route) =>
        route.fulfill({ json: { id: "a-newer-build", timestamp: START }, headers: { "Cache-Control": "no-store" } }),
      );
      await gotoHydrated(page, `${site.server.url}/`);
      await setDocumentMarker(page);
      await page.clock.fastForward(1_000);

      expect(await page.getByTestId("update-notice").count()).toBe(0);
      const checked = page.waitForRequest(isLatest);
      await page.clock.fastForward(HOUR);
      const latest = await checked;
      expect(new URL(latest.url()).search).toMatch(/^\?\d+$/);

      const notice = page.getByTestId("update-notice");
      await notice.waitFor({ state: "visible" });
      expect(await notice.textContent()).toContain("A new version of this site is available");
      expect(await documentMarker(page)).toBe(1);
      expect(s.documentLoads()).toHaveLength(1);

      const loaded = page.waitForEvent("load");
      await mainNavLink(page, "CVE radar").click();
      await loaded;
      await waitForHydration(page);
      expect(page.url()).toBe(`${site.server.url}/cve-radar`);
      expect(await page.title()).toBe("CVE radar · Threat Radar");
      expect(await documentMarker(page)).toBeUndefined();
      expect(s.documentLoads()).toEqual([`${site.server.url}/`, `${site.server.url}/cve-radar`]);
      expect(s.console.problems()).toEqual([]);
    });
  });

  it("the notice's 'Reload now' reloads the page", async () => {
    await withFrozenClock(async (s) => {
      const { page } = s;
      await s.context.route("**/_app/builds/latest.json*", (route) => route.fulfill({ json: { id: "a-newer-build", timestamp: START } }));
      await gotoHydrated(page, `${site.server.url}/ioc-radar`);
      await page.clock.fastForward(HOUR);
      await page.getByTestId("update-notice").waitFor({ state: "visible" });

      const loaded = page.waitForEvent("load");
      await page.getByRole("button", { name: "Reload now" }).click();
      await loaded;
      expect(s.documentLoads()).toEqual([`${site.server.url}/ioc-radar`, `${site.server.url}/ioc-radar`]);
    });
  });

  it("the same id keeps navigations client-side and shows no notice", async () => {
    await withFrozenClock(async (s) => {
      const { page } = s;
      await gotoHydrated(page, `${site.server.url}/`);
      await setDocumentMarker(page);
      const checked = page.waitForEvent("requestfinished", isLatest);
      await page.clock.fastForward(HOUR);
      const latest = await checked;
      expect(((await (await latest.response())!.json()) as { id: string }).id).toBe(site.server.buildId);
      // Had the answer been taken for a new build, the notice would show by the time the navigation is done.

      await mainNavLink(page, "CVE radar").click();
      await waitForTitle(page, "CVE radar · Threat Radar");
      expect(await page.getByTestId("update-notice").count()).toBe(0);
      expect(await documentMarker(page)).toBe(1);
      expect(s.documentLoads()).toHaveLength(1);
      expect(s.console.problems()).toEqual([]);
    });
  });

  it("checks again every hour", async () => {
    await withFrozenClock(async (s) => {
      const { page } = s;
      await gotoHydrated(page, `${site.server.url}/`);
      for (let hour = 1; hour <= 3; hour++) {
        const checked = page.waitForEvent("requestfinished", isLatest);
        await page.clock.fastForward(HOUR);
        await checked;
        expect(s.requests.filter(isLatest)).toHaveLength(hour);
      }
    });
  });
});
