import { describe, expect, inject, it } from "vitest";
import { gotoHydrated, openSession } from "./helpers/browser";
import { e2eSite } from "./helpers/site";

/**
 * Chrome's DevTools "Issues" (CSP violations, deprecated APIs, mixed content,
 * cookie problems…) stay empty on every route, charts drawn. A CSP violation
 * the page catches itself, such as a library probing whether eval is allowed,
 * shows up here and nowhere in the console.
 */

const site = e2eSite({ DATABASE_PATH: inject("snapshotDatabase") });

const ROUTES = ["/", "/cve-radar", "/cve-radar/CVE-2024-3400", "/ioc-radar", "/ioc-radar/8.8.8.8"];

describe("DevTools issues", () => {
  it.each(ROUTES)("%s raises none, with every chart drawn", async (route) => {
    const s = await openSession(site.browser);
    try {
      const cdp = await s.context.newCDPSession(s.page);
      const issues: string[] = [];
      cdp.on("Audits.issueAdded", ({ issue }) => issues.push(JSON.stringify(issue)));
      await cdp.send("Audits.enable");
      await gotoHydrated(s.page, `${site.server.url}${route}`);
      for (const chart of await s.page.getByTestId("chart").all()) {
        await chart.scrollIntoViewIfNeeded();
        await chart.locator("canvas").waitFor();
      }
      await s.page.waitForLoadState("networkidle");
      expect(issues).toEqual([]);
      expect(s.console.problems()).toEqual([]);
    } finally {
      await s.close();
    }
  });
});
