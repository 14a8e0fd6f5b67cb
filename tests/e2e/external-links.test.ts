import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appendToBody, documentMarker, gotoHydrated, openSession, setDocumentMarker, waitForHydration, type E2eSession } from "./helpers/browser";
import { documentNotFound } from "./helpers/console";
import { startLoopbackSite, type LoopbackSite } from "./helpers/loopback-site";
import { e2eSite } from "./helpers/site";

/**
 * The error screen's 'Back to Home' and the external-navigation policy
 * (client/runtime/navigation-guard.ts), against two other loopback "sites":
 * the old site (PUBLIC_OLD_BASE_URL, hence an allowed origin) and an
 * external site that nothing allows.
 */

let oldSite: LoopbackSite;
let externalSite: LoopbackSite;

beforeAll(async () => {
  [oldSite, externalSite] = await Promise.all([startLoopbackSite("Old site"), startLoopbackSite("External site")]);
});
// Registered after the stand-ins' hooks: vitest closes the site first, the stand-ins last.
afterAll(async () => {
  await oldSite?.close();
  await externalSite?.close();
});
const site = e2eSite(() => ({ PUBLIC_OLD_BASE_URL: `${oldSite.origin}/legacy/` }));

async function withSession(run: (s: E2eSession) => Promise<void>) {
  const s = await openSession(site.browser);
  try {
    await run(s);
  } finally {
    await s.close();
  }
}

/** The guard's console warning for a blocked link: the sign that the click was handled and stopped. */
function blockedWarning(page: Page, href: string) {
  return page.waitForEvent("console", {
    predicate: (message) => message.type() === "warning" && message.text() === `Navigation to ${href} was blocked by the external-link policy`,
  });
}

/**
 * Inserts a link outside the React root and clicks it; resolves once the guard
 * has warned about it, and checks that the click's default action (following
 * the link) was cancelled, as seen once the event's dispatch is over.
 */
async function clickBlockedLink(page: Page, id: string, href: string, resolvedHref = href): Promise<void> {
  await page.evaluate(
    ({ id, href }) => {
      const w = window as unknown as { __e2eClicks?: Record<string, boolean> };
      if (!w.__e2eClicks) {
        const clicks: Record<string, boolean> = {};
        w.__e2eClicks = clicks;
        // Window capture runs before the guard's document listener; the timeout reads the outcome after dispatch.
        window.addEventListener(
          "click",
          (event) => {
            const link = (event.target as Element | null)?.closest?.("a[id]");
            if (link) setTimeout(() => (clicks[link.id] = event.defaultPrevented), 0);
          },
          { capture: true },
        );
      }
      const link = document.createElement("a");
      link.id = id;
      link.setAttribute("href", href);
      link.textContent = id;
      document.body.append(link);
    },
    { id, href },
  );
  const warned = blockedWarning(page, resolvedHref);
  await page.locator(`#${id}`).click();
  await warned;
  const outcome = await page.waitForFunction((linkId) => {
    const clicks = (window as unknown as { __e2eClicks: Record<string, boolean> }).__e2eClicks;
    return linkId in clicks ? { defaultPrevented: clicks[linkId] } : null;
  }, id);
  expect(await outcome.jsonValue()).toEqual({ defaultPrevented: true });
}

describe("404 error screen", () => {
  it("'Back to Home' takes the browser to the configured old base URL", async () => {
    await withSession(async (s) => {
      const url = `${site.server.url}/no/such/page`;
      const response = await s.page.goto(url);
      expect(response?.status()).toBe(404);
      await waitForHydration(s.page);

      const button = s.page.getByRole("link", { name: "Back to Home" });
      expect(await button.getAttribute("href")).toBe(`${oldSite.origin}/legacy/`);
      await button.click();
      await s.page.waitForURL(`${oldSite.origin}/legacy/`);
      expect(await s.page.title()).toBe("Old site /legacy/");
      expect(oldSite.requests).toContain("/legacy/");
      expect(s.console.problems([documentNotFound(url)])).toEqual([]);
    });
  });
});

describe("external-navigation policy", () => {
  it("a link to another host without permission does not navigate", async () => {
    await withSession(async (s) => {
      const { page } = s;
      await gotoHydrated(page, `${site.server.url}/cve-radar`);
      await setDocumentMarker(page);

      await clickBlockedLink(page, "ext", "http://127.0.0.2:9/x");
      expect(page.url()).toBe(`${site.server.url}/cve-radar`);
      expect(await documentMarker(page)).toBe(1);
      expect(s.requests.map((request) => request.url()).filter((url) => url.includes("127.0.0.2"))).toEqual([]);
      expect(s.documentLoads()).toHaveLength(1);
      expect(s.console.problems()).toEqual([]);
    });
  });

  it("a link to a reachable external site is blocked without data-allow-external and followed with it", async () => {
    await withSession(async (s) => {
      const { page } = s;
      await gotoHydrated(page, `${site.server.url}/`);
      await setDocumentMarker(page);
      const href = `${externalSite.origin}/landing`;

      await clickBlockedLink(page, "plain-external", href);
      expect(page.url()).toBe(`${site.server.url}/`);
      expect(await documentMarker(page)).toBe(1);
      expect(externalSite.requests).toEqual([]);

      await appendToBody(page, `<a id="allowed-external" href="${href}" data-allow-external>allowed</a>`);
      await page.locator("#allowed-external").click();
      await page.waitForURL(href);
      expect(await page.title()).toBe("External site /landing");
      expect(externalSite.requests).toContain("/landing");
      expect(s.console.problems()).toEqual([]);
    });
  });

  it("a link to an allowed origin (the old base URL's) navigates without the attribute", async () => {
    await withSession(async (s) => {
      const { page } = s;
      await gotoHydrated(page, `${site.server.url}/ioc-radar`);
      const href = `${oldSite.origin}/somewhere`;
      await appendToBody(page, `<a id="allowed-origin" href="${href}">old site</a>`);
      await page.locator("#allowed-origin").click();
      await page.waitForURL(href);
      expect(oldSite.requests).toContain("/somewhere");
    });
  });

  it("javascript:, data: and vbscript: links never run or navigate", async () => {
    await withSession(async (s) => {
      const { page } = s;
      await gotoHydrated(page, `${site.server.url}/`);
      await setDocumentMarker(page);

      const forbidden = [
        ["js", "javascript:window.__jsRan=1"],
        ["js-upper", "JavaScript:window.__jsRan=2"],
        ["js-tab", "java\tscript:window.__jsRan=3"],
        ["js-space", " javascript:window.__jsRan=4"],
        ["data", "data:text/html,<script>opener.__jsRan=5</script>"],
        ["vbs", "vbscript:msgbox(1)"],
      ] as const;
      for (const [id, href] of forbidden) {
        const resolved = await page.evaluate((value) => {
          const probe = document.createElement("a");
          probe.setAttribute("href", value);
          return probe.href;
        }, href);
        await clickBlockedLink(page, id, href, resolved);
      }

      expect(await page.evaluate(() => (window as unknown as { __jsRan?: number }).__jsRan)).toBeUndefined();
      expect(page.url()).toBe(`${site.server.url}/`);
      expect(await documentMarker(page)).toBe(1);
      expect(s.documentLoads()).toHaveLength(1);
      // The guard stopped them before the browser got to them: no CSP violation was even reported.
      expect(s.console.problems()).toEqual([]);
    });
  });

  it("an internal plain link still navigates (the guard only stops what leaves the site)", async () => {
    await withSession(async (s) => {
      const { page } = s;
      await gotoHydrated(page, `${site.server.url}/`);
      await appendToBody(page, '<a id="internal" href="/ioc-radar">internal</a>');
      await page.locator("#internal").click();
      await page.waitForURL(`${site.server.url}/ioc-radar`);
      await waitForHydration(page);
      expect(await page.title()).toBe("IOC radar · Threat Radar");
      expect(s.documentLoads()).toEqual([`${site.server.url}/`, `${site.server.url}/ioc-radar`]);
    });
  });
});
