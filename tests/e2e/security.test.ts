import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { gotoHydrated, mainNavLink, openSession, waitForHydration, waitForTitle, type E2eSession } from "./helpers/browser";
import { documentNotFound } from "./helpers/console";
import { e2eSite } from "./helpers/site";

/**
 * Configuration and URLs are data, never markup: a site name that tries to
 * close the boot-state script and open its own must show as text and run nothing.
 */

const SITE_NAME = "Radar </script><script>window.__pwned=1</script>";

const site = e2eSite({ PUBLIC_SITE_NAME: SITE_NAME });

async function withSession(run: (s: E2eSession) => Promise<void>) {
  const s = await openSession(site.browser);
  try {
    await run(s);
  } finally {
    await s.close();
  }
}

const pwned = (page: Page) => page.evaluate(() => (window as unknown as { __pwned?: unknown }).__pwned);

describe("script injection through the configuration", () => {
  it("a site name with </script><script> hydrates, runs nothing and shows literally in the header and title", async () => {
    await withSession(async (s) => {
      const { page } = s;
      await gotoHydrated(page, `${site.server.url}/`);
      expect(await pwned(page)).toBeUndefined();

      const brand = page.locator(".site-header__brand");
      expect(await brand.locator("span").textContent()).toBe(SITE_NAME);
      expect(await brand.getAttribute("aria-label")).toBe(`${SITE_NAME} home`);
      expect(await page.title()).toBe(`Home · ${SITE_NAME}`);
      // The boot state reached the client intact: the same text came out of the JSON.
      expect(await page.evaluate(() => window.__THREAT_RADAR__?.config.siteName)).toBe(SITE_NAME);
      // No script element was created from the name, and the CSP had nothing to refuse.
      const injected = await page.evaluate(
        () =>
          [...document.scripts].filter((script) => script.textContent?.startsWith("window.__pwned") || script.textContent?.trim() === "window.__pwned=1")
            .length,
      );
      expect(injected).toBe(0);
      expect(s.console.problems()).toEqual([]);

      await mainNavLink(page, "CVE radar").click();
      await waitForTitle(page, `CVE radar · ${SITE_NAME}`);
      expect(await brand.locator("span").textContent()).toBe(SITE_NAME);
      expect(await pwned(page)).toBeUndefined();
      expect(s.console.problems()).toEqual([]);
    });
  });

  it("the 404 page reflects a script-like path as text only", async () => {
    await withSession(async (s) => {
      const { page } = s;
      const url = `${site.server.url}/%3Cscript%3Ewindow.__pwned=2%3C/script%3E`;
      const response = await page.goto(url);
      expect(response?.status()).toBe(404);
      await waitForHydration(page);
      expect(await pwned(page)).toBeUndefined();
      expect(await page.title()).toBe(`Page Not Found · ${SITE_NAME}`);
      expect(await page.locator(".error-screen__detail").textContent()).toBe("Page not found: /%3Cscript%3Ewindow.__pwned=2%3C/script%3E");
      expect(s.console.problems([documentNotFound(url)])).toEqual([]);
    });
  });
});
