import { describe, expect, it } from "vitest";
import { HYDRATED, openSession, waitForHydration } from "./helpers/browser";
import { documentNotFound } from "./helpers/console";
import { seedCve } from "./helpers/seed";
import { e2eSite } from "./helpers/site";

/**
 * Browser twins of the server-rendering tests in tests/integration/shell:
 * every page the server renders must hydrate in Chromium without a console
 * error and without a hydration mismatch.
 */

const SITE = "Threat Radar";

const site = e2eSite({}, ({ server }) => seedCve(server.databasePath, "CVE-2024-3400"));

describe("server-rendered pages hydrate in the browser", () => {
  it.each([
    ["/", `Home · ${SITE}`, "Threat Radar"],
    ["/cve-radar", `CVE radar · ${SITE}`, "CVE radar"],
    ["/cve-radar/CVE-2024-3400", `CVE-2024-3400 · ${SITE}`, "CVE-2024-3400"],
    ["/ioc-radar", `IOC radar · ${SITE}`, "IOC radar"],
    // The indicator page titles it by type and shows it defanged.
    ["/ioc-radar/8.8.8.8", `ipv4 8[.]8[.]8[.]8 · ${SITE}`, "8[.]8[.]8[.]8"],
  ])("%s: 200, lang en-US, title, hydrated with no console error or hydration warning", async (path, title, heading) => {
    const s = await openSession(site.browser);
    try {
      const response = await s.page.goto(`${site.server.url}${path}`);
      expect(response?.status()).toBe(200);
      await waitForHydration(s.page);

      expect(await s.page.locator("html").getAttribute("lang")).toBe("en-US");
      expect(await s.page.title()).toBe(title);
      expect(await s.page.locator("main h1").first().textContent()).toContain(heading);
      // The layout is there: header navigation and footer.
      expect(await s.page.getByRole("navigation", { name: "Main" }).getByRole("link").count()).toBe(3);
      expect(s.console.problems()).toEqual([]);
      expect(s.documentLoads()).toEqual([`${site.server.url}${path}`]);

      // With no reCAPTCHA key and no tag-manager ids nothing is loaded from their hosts (nor from anywhere else).
      expect(s.blocked).toEqual([]);
      expect(s.requests.filter((request) => !request.url().startsWith(`${site.server.url}/`))).toEqual([]);
      expect(await s.page.locator("script#bot-check, script[id^='tag-manager-'], .bot-check-attribution").count()).toBe(0);
      expect(await s.page.evaluate(() => "dataLayer" in window || "grecaptcha" in window)).toBe(false);
    } finally {
      await s.close();
    }
  });

  it("an unmatched path: the 404 error screen hydrates; the document's own 404 is the only console error", async () => {
    const s = await openSession(site.browser);
    const url = `${site.server.url}/no/such/page`;
    try {
      const response = await s.page.goto(url);
      expect(response?.status()).toBe(404);
      await waitForHydration(s.page);

      expect(await s.page.locator("html").getAttribute("lang")).toBe("en-US");
      expect(await s.page.title()).toBe(`Page Not Found · ${SITE}`);
      const screen = s.page.locator("main.error-screen");
      expect(await screen.getAttribute("data-status")).toBe("404");
      expect(await screen.locator("h1").textContent()).toBe("Page Not Found");
      expect(await screen.locator(".error-screen__detail").textContent()).toBe("Page not found: /no/such/page");
      expect(await screen.getByRole("link", { name: "Back to Home" }).isVisible()).toBe(true);
      // The error screen replaces the layout.
      expect(await s.page.getByRole("navigation", { name: "Main" }).count()).toBe(0);

      expect(s.console.problems([documentNotFound(url)])).toEqual([]);
      expect(s.console.errors.filter(documentNotFound(url))).toHaveLength(1);
      expect(s.blocked).toEqual([]);
    } finally {
      await s.close();
    }
  });

  it("the hydration check is not blind: a tampered server HTML is reported as a hydration problem", async () => {
    const s = await openSession(site.browser);
    try {
      // Change the server's HTML of the site name in the header, as a server/client divergence would.
      await s.page.route(`${site.server.url}/`, async (route) => {
        const response = await route.fetch();
        const html = await response.text();
        const tampered = html.replace(`<span>${SITE}</span>`, `<span>${SITE} (server)</span>`);
        expect(tampered).not.toBe(html);
        await route.fulfill({ response, body: tampered });
      });
      await s.page.goto(`${site.server.url}/`);
      await s.page.locator(HYDRATED).waitFor({ state: "attached" });
      // The production build reports it as "Minified React error #418" (hydration text mismatch).
      await expect.poll(() => s.console.hydrationWarnings.join("\n")).toMatch(/#418|hydrat/i);
      expect(s.console.problems().length).toBeGreaterThan(0);
    } finally {
      await s.close();
    }
  });
});
