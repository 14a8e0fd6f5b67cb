import { describe, expect, it } from "vitest";
import { appendToBody, documentMarker, gotoHydrated, mainNavLink, openSession, setDocumentMarker, waitForTitle, type E2eSession } from "./helpers/browser";
import { abortedLoad } from "./helpers/console";
import { e2eSite } from "./helpers/site";

/**
 * The bot check (reCAPTCHA v3 through recaptcha.net) and the tag manager,
 * configured. Their scripts are requested from the internet, so the suite's
 * network block aborts them: the page must not care.
 */

const SITE_KEY = "6Lc_test_site_key_000";
const GTM_IDS = ["GTM-ABC1234", "GTM-XYZ5678"];
const BOT_CHECK_URL = `https://www.recaptcha.net/recaptcha/api.js?render=${SITE_KEY}`;
const TAG_MANAGER_URLS = GTM_IDS.map((id) => `https://www.googletagmanager.com/gtm.js?id=${id}`);
const THIRD_PARTY_URLS = [BOT_CHECK_URL, ...TAG_MANAGER_URLS];

const site = e2eSite({ RECAPTCHA_SITE_KEY: SITE_KEY, RECAPTCHA_SECRET_KEY: "e2e-secret-never-sent", GTM_IDS: GTM_IDS.join(",") });

async function withSession(run: (s: E2eSession) => Promise<void>) {
  const s = await openSession(site.browser);
  try {
    await run(s);
  } finally {
    await s.close();
  }
}

const thirdPartyAborted = abortedLoad((url) => THIRD_PARTY_URLS.includes(url));

describe("bot check and tag manager", () => {
  it("requests the reCAPTCHA script and each GTM id's script exactly once, and the page still works without them", async () => {
    await withSession(async (s) => {
      const { page } = s;
      await gotoHydrated(page, `${site.server.url}/`);
      await setDocumentMarker(page);
      for (const [link, title] of [
        ["CVE radar", "CVE radar · Threat Radar"],
        ["IOC radar", "IOC radar · Threat Radar"],
        ["Home", "Home · Threat Radar"],
      ] as const) {
        await mainNavLink(page, link).click();
        await waitForTitle(page, title);
      }
      expect(await documentMarker(page)).toBe(1);

      // Every script has been asked for by now (the failed loads are logged below); count them.
      await expect.poll(() => s.console.errors.filter(thirdPartyAborted).length).toBe(THIRD_PARTY_URLS.length);
      const requested = s.requests.map((request) => request.url());
      expect(requested.filter((url) => url === BOT_CHECK_URL)).toHaveLength(1);
      for (const url of TAG_MANAGER_URLS) expect(requested.filter((u) => u === url)).toHaveLength(1);
      expect(requested.filter((url) => !url.startsWith(site.server.url)).sort()).toEqual([...THIRD_PARTY_URLS].sort());
      expect([...s.blocked].sort()).toEqual([...THIRD_PARTY_URLS].sort());

      // The aborted third-party loads are the only console errors; nothing of ours failed.
      expect(s.console.problems([thirdPartyAborted])).toEqual([]);
    });
  });

  it("the scripts are added once each, with the ids the runtime gives them, and the tag manager's dataLayer is started", async () => {
    await withSession(async (s) => {
      const { page } = s;
      await gotoHydrated(page, `${site.server.url}/cve-radar`);
      const scripts = await page.evaluate(() =>
        [...document.querySelectorAll<HTMLScriptElement>("script#bot-check, script[id^='tag-manager-']")].map((script) => ({
          id: script.id,
          src: script.src,
          async: script.async,
        })),
      );
      expect(scripts).toEqual([
        { id: "bot-check", src: BOT_CHECK_URL, async: true },
        ...GTM_IDS.map((id, index) => ({ id: `tag-manager-${id}`, src: TAG_MANAGER_URLS[index], async: true })),
      ]);
      const events = await page.evaluate(() =>
        ((window as unknown as { dataLayer?: Array<Record<string, unknown>> }).dataLayer ?? []).map((entry) => entry.event),
      );
      expect(events).toEqual(["gtm.js", "gtm.js"]);
    });
  });

  it("shows the reCAPTCHA attribution and hides reCAPTCHA's badge", async () => {
    await withSession(async (s) => {
      const { page } = s;
      await gotoHydrated(page, `${site.server.url}/`);
      const attribution = page.locator(".bot-check-attribution");
      expect(await attribution.isVisible()).toBe(true);
      expect((await attribution.textContent())?.replace(/\s+/g, " ").trim()).toBe(
        "This site is protected by reCAPTCHA and the Google Privacy Policy and Terms of Service apply.",
      );
      expect(await attribution.getByRole("link", { name: "Privacy Policy" }).getAttribute("href")).toBe("https://policies.google.com/privacy");
      expect(await attribution.getByRole("link", { name: "Terms of Service" }).getAttribute("href")).toBe("https://policies.google.com/terms");

      // reCAPTCHA would add its badge as .grecaptcha-badge; the stylesheet must hide it.
      await appendToBody(page, '<div class="grecaptcha-badge" id="badge">badge</div><div id="control">control</div>');
      const visibility = await page.evaluate(() => ({
        badge: getComputedStyle(document.getElementById("badge")!).visibility,
        control: getComputedStyle(document.getElementById("control")!).visibility,
      }));
      expect(visibility).toEqual({ badge: "hidden", control: "visible" });
    });
  });

  it("the 404 error screen hydrates too with the third-party scripts configured", async () => {
    await withSession(async (s) => {
      const url = `${site.server.url}/no/such/page`;
      await gotoHydrated(s.page, url);
      expect(await s.page.locator("main.error-screen h1").textContent()).toBe("Page Not Found");
      await expect.poll(() => s.console.errors.filter(thirdPartyAborted).length).toBe(THIRD_PARTY_URLS.length);
      const notFound = (entry: { url: string; text: string }) =>
        entry.url === url && entry.text.startsWith("Failed to load resource: the server responded with a status of 404");
      expect(s.console.problems([thirdPartyAborted, notFound])).toEqual([]);
    });
  });
});
