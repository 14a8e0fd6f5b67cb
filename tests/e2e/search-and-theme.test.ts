import { describe, expect, inject, it } from "vitest";
import { gotoHydrated, openSession, type E2eSession } from "./helpers/browser";
import { e2eSite } from "./helpers/site";

/** The header search box and the theme toggle, on every page. */

const site = e2eSite({ DATABASE_PATH: inject("snapshotDatabase"), SYNC_ENABLED: "false" });

async function withSession(run: (s: E2eSession) => Promise<void>) {
  const s = await openSession(site.browser);
  try {
    await run(s);
  } finally {
    await s.close();
  }
}

async function search(s: E2eSession, text: string): Promise<void> {
  const box = s.page.getByTestId("site-search");
  await box.fill(text);
  await box.press("Enter");
}

describe("header search", () => {
  it("routes a CVE id, a defanged URL, a list of hashes and a phrase to the right places", () =>
    withSession(async (s) => {
      const { page } = s;
      await gotoHydrated(page, `${site.server.url}/`);
      await search(s, "cve-2024-3400");
      await page.waitForURL(`${site.server.url}/cve-radar/CVE-2024-3400`);

      await search(s, "hxxps://evil[.]example[.]com/login.php");
      await page.waitForURL(`${site.server.url}/ioc-radar/https%3A%2F%2Fevil.example.com%2Flogin.php`);

      const hashes = "44d88612fea8a8f36de82e1278abb02f 3395856ce81f2b7382dee72602f798b642f14140";
      await search(s, hashes);
      await page.waitForURL((url) => url.pathname === "/ioc-radar" && url.searchParams.get("lookup")?.includes("44d88612") === true);
      // The pasted text lands in bulk lookup and is looked up at once; it is not a list filter.
      await expect.poll(() => page.getByTestId("lookup-result").textContent()).toContain("2 indicators found");
      expect(await page.locator("#bulk-lookup textarea").inputValue()).toBe(hashes);
      expect(
        await page
          .getByTestId("lookup-table")
          .locator("tbody tr")
          .evaluateAll((rows) => rows.map((row) => row.getAttribute("data-verdict"))),
      ).toHaveLength(2);
      expect(await page.getByText("lookup is not a known parameter").count()).toBe(0);

      await search(s, "GlobalProtect command injection");
      await page.waitForURL((url) => url.pathname === "/cve-radar" && url.searchParams.get("q") === "GlobalProtect command injection");
      await expect.poll(() => page.locator('[data-testid="cve-table"]').textContent()).toContain("CVE-2024-3400");
      expect(s.documentLoads()).toHaveLength(1);
    }));

  it("focuses the search box on '/' unless the user is typing elsewhere", () =>
    withSession(async (s) => {
      const { page } = s;
      await gotoHydrated(page, `${site.server.url}/cve-radar`);
      await page.locator("body").press("/");
      expect(await page.evaluate(() => document.activeElement?.getAttribute("data-testid"))).toBe("site-search");
      expect(await page.getByTestId("site-search").inputValue()).toBe("");

      await page.getByLabel("Vendor", { exact: true }).focus();
      await page.keyboard.type("a/b");
      expect(await page.getByLabel("Vendor", { exact: true }).inputValue()).toBe("a/b");
    }));

  it("suggests CVE ids and vendors as you type", () =>
    withSession(async (s) => {
      const { page } = s;
      await gotoHydrated(page, `${site.server.url}/`);
      await page.getByTestId("site-search").pressSequentially("CVE-2024-340");
      const values = () => page.locator("#site-search-suggestions option").evaluateAll((options) => options.map((o) => (o as HTMLOptionElement).value));
      await expect
        .poll(async () => {
          const current = await values();
          return current.length > 0 && current.every((value) => value.startsWith("CVE-2024-340"));
        })
        .toBe(true);
      await page.getByTestId("site-search").fill("ivant");
      await expect.poll(values).toContain("Ivanti");
    }));
});

describe("theme", () => {
  it("follows the system, toggles, and keeps the choice across reloads without a flash", async () => {
    const context = await site.browser.newContext({ colorScheme: "light" });
    await context.route(
      (url) => !url.href.startsWith(site.server.url),
      (route) => route.abort(),
    );
    try {
      const page = await context.newPage();
      await gotoHydrated(page, `${site.server.url}/`);
      const background = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
      const light = await background();
      await page.getByTestId("theme-toggle").click();
      const dark = await background();
      expect(dark).not.toBe(light);
      expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe("dark");

      // Record the theme at the reloaded document's first frame, before it is painted: it must already be dark.
      await page.addInitScript(() => {
        requestAnimationFrame(() => {
          (window as unknown as { firstTheme: string | undefined }).firstTheme = document.documentElement.dataset.theme;
        });
      });
      await page.reload();
      await page.waitForSelector('#root[data-hydration="hydrated"]');
      expect(await page.evaluate(() => (window as unknown as { firstTheme?: string }).firstTheme)).toBe("dark");
      expect(await background()).toBe(dark);
    } finally {
      await context.close();
    }
  });
});
