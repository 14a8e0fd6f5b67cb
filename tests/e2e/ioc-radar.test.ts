import { describe, expect, inject, it } from "vitest";
import { documentMarker, gotoHydrated, openSession, setDocumentMarker, type E2eSession } from "./helpers/browser";
import { e2eSite } from "./helpers/site";

/** The IOC radar in a real browser, on the real snapshot data (Feodo Tracker, MalwareBazaar, TweetFeed, signature-base, MISP warninglists). */

const site = e2eSite({ DATABASE_PATH: inject("snapshotDatabase"), SYNC_ENABLED: "false" });

async function withSession(run: (s: E2eSession) => Promise<void>) {
  const s = await openSession(site.browser, { viewport: { width: 1440, height: 900 } });
  try {
    await run(s);
    expect(s.console.problems()).toEqual([]);
  } finally {
    await s.close();
  }
}

const copyValues = (s: E2eSession) =>
  s.page.locator('[data-testid="ioc-table"] tbody tr [data-copy-value]').evaluateAll((buttons) => buttons.map((b) => b.getAttribute("data-copy-value")));

describe("IOC radar", () => {
  it("filters and paginates with the URL changing and no document reload", () =>
    withSession(async (s) => {
      const { page } = s;
      await gotoHydrated(page, `${site.server.url}/ioc-radar`);
      await setDocumentMarker(page);
      const initial = await copyValues(s);
      expect(initial).toHaveLength(25);

      await page.locator('select[name="source"]').selectOption("feodotracker");
      await page.getByRole("checkbox", { name: "ipv4", exact: true }).check();
      await page.getByRole("button", { name: "Apply filters" }).click();
      await page.waitForURL(/\/ioc-radar\?type=ipv4&source=feodotracker/);
      await expect.poll(() => page.locator(".results-bar strong").textContent()).toBe("28");
      const filtered = await copyValues(s);
      expect(filtered).not.toEqual(initial);
      expect(filtered.every((value) => /^\d+\.\d+\.\d+\.\d+$/.test(value ?? ""))).toBe(true);

      await page.getByRole("link", { name: "Next" }).first().click();
      await page.waitForURL(/page=2/);
      await expect.poll(() => copyValues(s)).toHaveLength(3);
      expect(await documentMarker(page)).toBe(1);
      expect(s.documentLoads()).toHaveLength(1);
    }));

  it("bulk lookup classifies each indicator of a mixed defanged paste", () =>
    withSession(async (s) => {
      const { page } = s;
      await gotoHydrated(page, `${site.server.url}/ioc-radar?source=feodotracker&sort=value&dir=asc`);
      const known = (await copyValues(s)).find((value) => value && !value.startsWith("192.9.135."))!;
      const paste = [
        `C2: ${known.replaceAll(".", "[.]")}`,
        "resolver 8[.]8[.]8[.]8",
        "drop hxxps://never-seen-4711[.]com/a.bin and never-seen-4711(.)com",
        "empty file d41d8cd98f00b204e9800998ecf8427e",
      ].join("\n");
      await page.getByLabel(/Paste text with indicators/).fill(paste);
      await page.getByRole("button", { name: "Look up" }).click();
      const result = page.getByTestId("lookup-result");
      await result.waitFor();
      const verdicts = await page
        .locator('[data-testid="lookup-table"] tbody tr')
        .evaluateAll((rows) =>
          Object.fromEntries(rows.map((row) => [row.querySelector("[data-copy-value]")?.getAttribute("data-copy-value"), row.getAttribute("data-verdict")])),
        );
      expect(verdicts).toEqual({
        [known]: "known",
        "8.8.8.8": "benign-listed",
        "https://never-seen-4711.com/a.bin": "unknown",
        "never-seen-4711.com": "unknown",
        d41d8cd98f00b204e9800998ecf8427e: "benign-listed",
      });
      expect(await result.textContent()).toContain("5 indicators found: 1 known, 2 unknown, 2 benign-listed.");
      expect(await page.locator('[data-testid="lookup-table"]').textContent()).toContain("hxxps://never-seen-4711[.]com/a.bin");
    }));

  it("the copy button copies the real, refanged value", () =>
    withSession(async (s) => {
      const { page, context } = s;
      await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: site.server.url });
      await gotoHydrated(page, `${site.server.url}/ioc-radar?type=url&source=tweetfeed`);
      const row = page.locator('[data-testid="ioc-table"] tbody tr').first();
      const shown = (await row.locator("code").textContent()) ?? "";
      expect(shown).toMatch(/^hxxps?:\/\/[^/]*\[\.\]/);
      await row.getByRole("button", { name: /^Copy / }).click();
      await expect.poll(() => row.getByRole("button", { name: /^Copy / }).textContent()).toBe("Copied");
      const copied = await page.evaluate(() => navigator.clipboard.readText());
      expect(copied).toBe(shown.replace(/^hxxp/, "http").replaceAll("[.]", "."));
      expect(copied).toBe(await row.locator("[data-copy-value]").getAttribute("data-copy-value"));
    }));

  it("draws the three charts with no console error, and opens a detail page", () =>
    withSession(async (s) => {
      const { page } = s;
      await gotoHydrated(page, `${site.server.url}/ioc-radar?source=feodotracker`);
      await page.waitForSelector('[data-testid="chart"] canvas');
      await expect.poll(() => page.locator('[data-testid="chart"] canvas').count()).toBeGreaterThanOrEqual(3);
      for (const title of ["Indicators per day (last seen) by type", "Top malware families", "Type distribution"]) {
        expect(await page.locator('[data-testid="chart"]', { hasText: title }).locator("canvas").count(), title).toBeGreaterThan(0);
      }
      await page.locator('[data-testid="ioc-table"] tbody tr').first().getByRole("link", { name: "details" }).click();
      await page.waitForURL(/\/ioc-radar\/\d+\.\d+\.\d+\.\d+$/);
      await expect.poll(() => page.getByRole("heading", { name: /Sightings by source/ }).isVisible()).toBe(true);
      expect(s.documentLoads()).toHaveLength(1);
    }));

  it("works without JavaScript: the filter form is a plain GET", async () => {
    const context = await site.browser.newContext({ javaScriptEnabled: false });
    try {
      const page = await context.newPage();
      await page.goto(`${site.server.url}/ioc-radar`);
      await page.locator('select[name="source"]').selectOption("malwarebazaar");
      await page.getByRole("button", { name: "Apply filters" }).click();
      await page.waitForURL(/source=malwarebazaar/);
      expect(await page.locator(".results-bar strong").textContent()).toBe("507");
    } finally {
      await context.close();
    }
  });
});
