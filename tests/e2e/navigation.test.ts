import type { Locator, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import {
  appendToBody,
  documentMarker,
  expectedPayloadPath,
  freezeClock,
  gotoHydrated,
  mainNavLink,
  setDocumentMarker,
  waitForHydration,
  waitForTitle,
} from "./helpers/browser";
import { seedCve } from "./helpers/seed";
import { e2eSite } from "./helpers/site";

/** Client-side navigation in the browser: payloads, no document reloads, and the layout's navigation effects. */

const SITE = "Threat Radar";
const HISTORY_KEY = "threat-radar:navigation-history";

const site = e2eSite({}, ({ server }) => seedCve(server.databasePath, "CVE-2024-3400"));

const { withSession } = site;

/** Activates a link from the keyboard without scrolling it into view first (a mouse click would). */
async function pressWithoutScrolling(page: Page, link: Locator): Promise<void> {
  await link.evaluate((element) => (element as HTMLElement).focus({ preventScroll: true }));
  await page.keyboard.press("Enter");
}

async function announcerText(page: Page): Promise<string> {
  return (await page.getByTestId("route-announcer").textContent()) ?? "";
}

async function waitForAnnouncement(page: Page, title: string): Promise<void> {
  await page.waitForFunction((expected) => document.querySelector('[data-testid="route-announcer"]')?.textContent === expected, `Navigated to ${title}`);
}

describe("client-side navigation", () => {
  it("header links move between /, /cve-radar and /ioc-radar via _payload.json, announced, never reloading the document", async () => {
    await withSession(async (s) => {
      const { page } = s;
      await gotoHydrated(page, `${site.server.url}/`);
      await setDocumentMarker(page);
      expect(s.payloadRequests()).toEqual([]);
      // The route announcer is a assertive live region, silent until the first navigation.
      expect(await page.getByTestId("route-announcer").getAttribute("aria-live")).toBe("assertive");
      expect(await announcerText(page)).toBe("");

      const steps = [
        { link: "CVE radar", path: "/cve-radar", title: `CVE radar · ${SITE}` },
        { link: "IOC radar", path: "/ioc-radar", title: `IOC radar · ${SITE}` },
        { link: "Home", path: "/", title: `Home · ${SITE}` },
        { link: "IOC radar", path: "/ioc-radar", title: `IOC radar · ${SITE}` },
        { link: "CVE radar", path: "/cve-radar", title: `CVE radar · ${SITE}` },
        { link: "Home", path: "/", title: `Home · ${SITE}` },
        { link: "IOC radar", path: "/ioc-radar", title: `IOC radar · ${SITE}` },
      ] as const;
      for (const [index, step] of steps.entries()) {
        await mainNavLink(page, step.link).click();
        await page.waitForURL(`${site.server.url}${step.path}`);
        await waitForTitle(page, step.title);
        await waitForAnnouncement(page, step.title);
        expect(s.payloadRequests()).toHaveLength(index + 1);
        expect(s.payloadRequests().at(-1)).toBe(`${site.server.url}${expectedPayloadPath(step.path, site.server.buildId)}`);
        expect(await mainNavLink(page, step.link).getAttribute("aria-current")).toBe("page");
      }
      // The site name in the header is a client-side link home too.
      await page.getByRole("link", { name: `${SITE} home` }).click();
      await page.waitForURL(`${site.server.url}/`);
      await waitForAnnouncement(page, `Home · ${SITE}`);
      expect(s.payloadRequests()).toHaveLength(steps.length + 1);
      expect(s.payloadRequests().at(-1)).toBe(`${site.server.url}${expectedPayloadPath("/", site.server.buildId)}`);

      expect(await documentMarker(page)).toBe(1);
      expect(s.documentLoads()).toEqual([`${site.server.url}/`]);
      expect(s.console.problems()).toEqual([]);
    });
  });

  it("a CVE in the CVE radar's table opens its detail page client-side", async () => {
    await withSession(async (s) => {
      const { page } = s;
      await gotoHydrated(page, `${site.server.url}/cve-radar`);
      await setDocumentMarker(page);
      await page.getByTestId("cve-table").getByRole("link", { name: "CVE-2024-3400", exact: true }).click();
      await page.waitForURL(`${site.server.url}/cve-radar/CVE-2024-3400`);
      await waitForTitle(page, `CVE-2024-3400 · ${SITE}`);
      await waitForAnnouncement(page, `CVE-2024-3400 · ${SITE}`);
      expect(s.payloadRequests()).toEqual([`${site.server.url}${expectedPayloadPath("/cve-radar/CVE-2024-3400", site.server.buildId)}`]);
      expect(await documentMarker(page)).toBe(1);
      expect(s.documentLoads()).toHaveLength(1);
      expect(s.console.problems()).toEqual([]);
    });
  });

  // Nothing links to an IOC detail page without IOC data (and detail pages were unlinked before the
  // CVE table existed), so detail pages are also reached client-side the way a person can: leave
  // with a header link and press Back.
  it.each([
    ["/cve-radar/CVE-2024-3400", "CVE radar", `CVE-2024-3400 · ${SITE}`],
    ["/ioc-radar/8.8.8.8", "IOC radar", `ipv4 8[.]8[.]8[.]8 · ${SITE}`],
  ] as const)("%s: left by a header link and returned to with Back, both client-side", async (detailPath, link, detailTitle) => {
    await withSession(async (s) => {
      const { page } = s;
      await gotoHydrated(page, `${site.server.url}${detailPath}`);
      await setDocumentMarker(page);
      const listPath = `/${detailPath.split("/")[1]}`;

      await mainNavLink(page, link).click();
      await page.waitForURL(`${site.server.url}${listPath}`);
      await waitForTitle(page, `${link} · ${SITE}`);

      await page.goBack();
      await page.waitForURL(`${site.server.url}${detailPath}`);
      await waitForTitle(page, detailTitle);
      await waitForAnnouncement(page, detailTitle);
      expect((await page.locator("main h1").first().textContent())?.replaceAll("[.]", ".")).toContain(detailPath.split("/")[2]);

      await page.goForward();
      await page.waitForURL(`${site.server.url}${listPath}`);
      await waitForTitle(page, `${link} · ${SITE}`);

      expect(s.payloadRequests()).toEqual(
        [listPath, detailPath, listPath].map((path) => `${site.server.url}${expectedPayloadPath(path, site.server.buildId)}`),
      );
      expect(await documentMarker(page)).toBe(1);
      expect(s.documentLoads()).toEqual([`${site.server.url}${detailPath}`]);
      expect(s.console.problems()).toEqual([]);
    });
  });
});

describe("navigation effects of the layout", () => {
  it("moving to another page scrolls to the top", async () => {
    await withSession(
      async (s) => {
        const { page } = s;
        await gotoHydrated(page, `${site.server.url}/`);
        // Outside the React root, so the document stays tall whatever the next page renders.
        await appendToBody(page, '<div id="e2e-spacer" style="height:4000px"></div>');
        await page.evaluate(() => window.scrollTo(0, 1500));
        expect(await page.evaluate(() => window.scrollY)).toBe(1500);

        await pressWithoutScrolling(page, mainNavLink(page, "CVE radar"));
        await page.waitForURL(`${site.server.url}/cve-radar`);
        await waitForAnnouncement(page, `CVE radar · ${SITE}`);
        await page.waitForFunction(() => window.scrollY === 0);
        expect(s.documentLoads()).toHaveLength(1);
      },
      { viewport: { width: 1024, height: 600 } },
    );
  });

  it("the layout's skip link (a hash link) brings #main-content into view and is recorded", async () => {
    await withSession(
      async (s) => {
        const { page } = s;
        await gotoHydrated(page, `${site.server.url}/`);
        await appendToBody(page, '<div id="e2e-spacer" style="height:4000px"></div>');
        await page.evaluate(() => window.scrollTo(0, 2000));

        await pressWithoutScrolling(page, page.getByRole("link", { name: "Skip to content" }));
        await page.waitForURL(`${site.server.url}/#main-content`);
        await page.waitForFunction(() => {
          const top = document.getElementById("main-content")!.getBoundingClientRect().top;
          return top >= -1 && top < window.innerHeight;
        });
        expect(await page.evaluate(() => window.scrollY)).toBeLessThan(2000);
        await expect.poll(() => page.evaluate((key) => sessionStorage.getItem(key), HISTORY_KEY)).toContain('"to":"/#main-content"');
      },
      { viewport: { width: 1024, height: 400 } },
    );
  });

  it("the CVE radar's 'Radar priority' hash link scrolls its explainer into view without loading anything", async () => {
    await withSession(
      async (s) => {
        const { page } = s;
        await gotoHydrated(page, `${site.server.url}/cve-radar`);
        await setDocumentMarker(page);
        const target = page.locator("#radar-priority");
        expect(await target.evaluate((element) => element.getBoundingClientRect().top > window.innerHeight)).toBe(true);

        await page.getByRole("link", { name: "Radar priority", exact: true }).click();
        await page.waitForURL(`${site.server.url}/cve-radar#radar-priority`);
        await page.waitForFunction(() => {
          const top = document.getElementById("radar-priority")!.getBoundingClientRect().top;
          return top >= -1 && top < window.innerHeight;
        });
        await expect
          .poll(() => page.evaluate((key) => sessionStorage.getItem(key), HISTORY_KEY))
          .toContain('{"from":"/cve-radar","to":"/cve-radar#radar-priority"');
        expect(s.payloadRequests()).toEqual([]);
        expect(await documentMarker(page)).toBe(1);
        expect(s.documentLoads()).toHaveLength(1);
      },
      { viewport: { width: 1024, height: 400 } },
    );
  });

  it("a client-side navigation to a location with a hash scrolls the hash's target into view", async () => {
    await withSession(
      async (s) => {
        const { page } = s;
        await gotoHydrated(page, `${site.server.url}/ioc-radar`);
        // Only the app may scroll on history traversal: switch off the browser's own restoration.
        await page.evaluate(() => {
          history.scrollRestoration = "manual";
        });
        await appendToBody(
          page,
          '<div style="height:3000px"></div><h2 id="e2e-target">Target</h2><div style="height:3000px"></div>' +
            '<a id="e2e-hash-link" href="#e2e-target">to the target</a>',
        );
        // A plain (router-free) hash link: /ioc-radar#e2e-target becomes a history entry.
        await pressWithoutScrolling(page, page.locator("#e2e-hash-link"));
        await page.waitForURL(`${site.server.url}/ioc-radar#e2e-target`);

        await page.evaluate(() => window.scrollTo(0, 0));
        await pressWithoutScrolling(page, mainNavLink(page, "CVE radar"));
        await page.waitForURL(`${site.server.url}/cve-radar`);
        await waitForTitle(page, `CVE radar · ${SITE}`);
        expect(await page.evaluate(() => window.scrollY)).toBe(0);

        // Back is a router navigation to /ioc-radar#e2e-target: the payload loads, then the effect scrolls.
        await page.goBack();
        await page.waitForURL(`${site.server.url}/ioc-radar#e2e-target`);
        await waitForTitle(page, `IOC radar · ${SITE}`);
        await page.waitForFunction(() => {
          const top = document.getElementById("e2e-target")!.getBoundingClientRect().top;
          return top >= -1 && top < window.innerHeight;
        });
        expect(await page.evaluate(() => window.scrollY)).toBeGreaterThan(2000);
        expect(s.payloadRequests().at(-1)).toBe(`${site.server.url}${expectedPayloadPath("/ioc-radar", site.server.buildId)}`);
        expect(s.documentLoads()).toHaveLength(1);
        expect(s.console.problems()).toEqual([]);
      },
      { viewport: { width: 1024, height: 600 } },
    );
  });

  it("keeps the navigation history {from, to, timestamp} in sessionStorage, across a reload", async () => {
    await withSession(async (s) => {
      const { page } = s;
      await gotoHydrated(page, `${site.server.url}/`);
      const before = Date.now();
      expect(await page.evaluate((key) => sessionStorage.getItem(key), HISTORY_KEY)).toBeNull();

      for (const [link, path] of [
        ["CVE radar", "/cve-radar"],
        ["IOC radar", "/ioc-radar"],
        ["Home", "/"],
      ] as const) {
        await mainNavLink(page, link).click();
        await page.waitForURL(`${site.server.url}${path}`);
        await waitForAnnouncement(page, `${link === "Home" ? "Home" : link} · ${SITE}`);
      }
      await page.reload();
      await waitForHydration(page);
      await mainNavLink(page, "IOC radar").click();
      await waitForAnnouncement(page, `IOC radar · ${SITE}`);
      const after = Date.now();

      const raw = await page.evaluate((key) => sessionStorage.getItem(key), HISTORY_KEY);
      const entries = JSON.parse(raw ?? "null") as Array<{ from: string; to: string; timestamp: number }>;
      expect(entries.map(({ from, to }) => ({ from, to }))).toEqual([
        { from: "/", to: "/cve-radar" },
        { from: "/cve-radar", to: "/ioc-radar" },
        { from: "/ioc-radar", to: "/" },
        { from: "/", to: "/ioc-radar" },
      ]);
      for (const entry of entries) {
        expect(Object.keys(entry).sort()).toEqual(["from", "timestamp", "to"]);
        expect(entry.timestamp).toBeGreaterThanOrEqual(before);
        expect(entry.timestamp).toBeLessThanOrEqual(after);
      }
      expect(entries.map((entry) => entry.timestamp)).toEqual([...entries.map((entry) => entry.timestamp)].sort((a, b) => a - b));
      expect(s.documentLoads()).toHaveLength(2);
    });
  });
});

describe("loading bar", () => {
  /** Records every value data-visible takes on the loading bar, and the page-loading events. */
  async function watchLoadingBar(page: Page): Promise<void> {
    await page.evaluate(() => {
      const bar = document.querySelector(".loading-bar")!;
      const seen: string[] = [];
      const events: string[] = [];
      Object.assign(window, { __e2eBar: seen, __e2eLoadingEvents: events });
      new MutationObserver(() => seen.push(bar.getAttribute("data-visible") ?? "")).observe(bar, {
        attributes: true,
        attributeFilter: ["data-visible"],
      });
      for (const name of ["threat-radar:page-loading-start", "threat-radar:page-loading-end"]) {
        window.addEventListener(name, () => events.push(name.split(":")[1]!));
      }
    });
  }
  const barValues = (page: Page) => page.evaluate(() => (window as unknown as { __e2eBar: string[] }).__e2eBar);
  const loadingEvents = (page: Page) => page.evaluate(() => (window as unknown as { __e2eLoadingEvents: string[] }).__e2eLoadingEvents);

  it("appears while a slow navigation (payload delayed 600 ms) is loading, and goes away after", async () => {
    await withSession(async (s) => {
      const { page } = s;
      await gotoHydrated(page, `${site.server.url}/`);
      expect(await page.locator(".loading-bar").getAttribute("data-visible")).toBe("false");
      // The payload answers after 600 ms, and not before the bar has shown: a stalled machine cannot make it "fast".
      let barShown!: () => void;
      const shown = new Promise<void>((done) => (barShown = done));
      await s.context.route("**/cve-radar/_payload.json*", async (route) => {
        await Promise.all([new Promise((done) => setTimeout(done, 600)), shown]);
        await route.continue();
      });
      await watchLoadingBar(page);

      await mainNavLink(page, "CVE radar").click();
      await page.locator('.loading-bar[data-visible="true"]').waitFor({ state: "attached" });
      barShown();
      expect(await page.locator(".loading-bar").getAttribute("aria-hidden")).toBe("false");
      await page.waitForURL(`${site.server.url}/cve-radar`);
      await waitForAnnouncement(page, `CVE radar · ${SITE}`);
      await page.locator('.loading-bar[data-visible="false"]').waitFor({ state: "attached" });

      expect(await barValues(page)).toEqual(["true", "false"]);
      expect(await loadingEvents(page)).toEqual(["page-loading-start", "page-loading-end"]);
      expect(s.console.problems()).toEqual([]);
    });
  });

  it("appears exactly when a navigation has been loading for 100 ms (fake clock, payload held)", async () => {
    await withSession(async (s) => {
      const { page } = s;
      const start = new Date("2026-03-01T08:00:00Z").getTime();
      await freezeClock(page, start);
      let release!: () => void;
      const released = new Promise<void>((done) => (release = done));
      await s.context.route("**/cve-radar/_payload.json*", async (route) => {
        await released;
        await route.continue();
      });
      await gotoHydrated(page, `${site.server.url}/`);
      await watchLoadingBar(page);

      await mainNavLink(page, "CVE radar").click();
      // The bar's timer is set when the loading state has rendered, which announces itself with this event.
      await page.waitForFunction(() => (window as unknown as { __e2eLoadingEvents: string[] }).__e2eLoadingEvents.includes("page-loading-start"));
      await page.clock.runFor(99);
      expect(await barValues(page)).toEqual([]);
      expect(await page.locator(".loading-bar").getAttribute("data-visible")).toBe("false");

      await page.clock.runFor(1);
      await page.locator('.loading-bar[data-visible="true"]').waitFor({ state: "attached" });

      release();
      await page.waitForURL(`${site.server.url}/cve-radar`);
      await waitForTitle(page, `CVE radar · ${SITE}`);
      await page.locator('.loading-bar[data-visible="false"]').waitFor({ state: "attached" });
      expect(await barValues(page)).toEqual(["true", "false"]);
      expect(await loadingEvents(page)).toEqual(["page-loading-start", "page-loading-end"]);
    });
  });

  it("does not appear for a navigation that finishes within 100 ms (fake clock)", async () => {
    await withSession(async (s) => {
      const { page } = s;
      // A paused clock makes "fast" exact: no page time passes while the
      // payload loads, however slow the machine, so the bar's timer cannot fire.
      await freezeClock(page, new Date("2026-03-01T08:00:00Z").getTime());
      await gotoHydrated(page, `${site.server.url}/`);
      // Warm up: load the IOC list's page chunk once, so the measured navigation only fetches its payload.
      await mainNavLink(page, "IOC radar").click();
      await waitForAnnouncement(page, `IOC radar · ${SITE}`);
      await mainNavLink(page, "Home").click();
      await waitForAnnouncement(page, `Home · ${SITE}`);

      await watchLoadingBar(page);
      await mainNavLink(page, "IOC radar").click();
      await page.waitForURL(`${site.server.url}/ioc-radar`);
      await waitForAnnouncement(page, `IOC radar · ${SITE}`);

      expect(await loadingEvents(page)).toEqual(["page-loading-start", "page-loading-end"]);
      // Past the threshold after the navigation ended: its timer was cleared, not merely late.
      await page.clock.runFor(100);
      expect(await barValues(page)).not.toContain("true");
      expect(await page.locator(".loading-bar").getAttribute("data-visible")).toBe("false");
      expect(s.console.problems()).toEqual([]);
    });
  });
});
