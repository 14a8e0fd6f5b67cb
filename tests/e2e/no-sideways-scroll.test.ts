import SQLite from "better-sqlite3";
import type { Page } from "playwright-core";
import { describe, expect, inject, it } from "vitest";
import { gotoHydrated, openSession } from "./helpers/browser";
import { e2eSite } from "./helpers/site";

/**
 * Every route, at the widths an analyst uses and in both themes, on the
 * snapshot import (real records with the longest values there are: a CVE
 * listing a hundred and fifty products, a 348-character URL): neither the
 * page nor any table box scrolls sideways.
 */

let routes: string[];

/** The snapshot's longest values, so the pages are tried on the worst real data rather than on tidy samples. */
function longestValues(path: string) {
  const db = new SQLite(path, { readonly: true });
  try {
    const cve = db
      .prepare("select id, vendor from cves where state = 'PUBLISHED' and vendor is not null order by length(coalesce(product, '')) desc limit 1")
      .get() as { id: string; vendor: string };
    const url = db.prepare("select value from indicators where type = 'url' order by length(value) desc limit 1").get() as { value: string };
    const hash = db.prepare("select value from indicators where type = 'sha256' limit 1").get() as { value: string };
    return { cve, url: url.value, hash: hash.value };
  } finally {
    db.close();
  }
}

const database = inject("snapshotDatabase");
const site = e2eSite({ DATABASE_PATH: database }, () => {
  const longest = longestValues(database);
  routes = [
    "/",
    "/cve-radar",
    `/cve-radar?vendor=${encodeURIComponent(longest.cve.vendor)}`,
    `/cve-radar/${longest.cve.id}`,
    "/cve-radar/CVE-2024-3400",
    "/ioc-radar",
    "/ioc-radar?type=url&sort=value",
    // The list search takes up to 200 characters.
    `/ioc-radar?q=${encodeURIComponent(longest.url.slice(0, 200))}`,
    `/ioc-radar/${encodeURIComponent(longest.url)}`,
    `/ioc-radar/${longest.hash}`,
  ];
});

/** Boxes wider than they are shown: the page itself and any element that scrolls sideways (table boxes above all). */
function sidewaysScrollers(page: Page) {
  return page.evaluate(() => {
    const found: string[] = [];
    const root = document.scrollingElement!;
    if (root.scrollWidth > root.clientWidth) found.push(`page: ${root.scrollWidth} px in ${root.clientWidth} px`);
    for (const element of document.querySelectorAll<HTMLElement>("main *")) {
      const { overflowX } = getComputedStyle(element);
      if ((overflowX === "auto" || overflowX === "scroll") && element.scrollWidth > element.clientWidth) {
        const name = `${element.tagName.toLowerCase()}.${[...element.classList].join(".")}`;
        found.push(`${name}: ${element.scrollWidth} px in ${element.clientWidth} px`);
      }
    }
    return found;
  });
}

const WIDTHS = [390, 600, 1024, 1440, 1920];
const THEMES = ["light", "dark"] as const;

describe.each(WIDTHS.flatMap((width) => THEMES.map((theme) => ({ width, theme }))))("at $width px, $theme theme", ({ width, theme }) => {
  it("no route scrolls sideways, neither the page nor a table", async () => {
    const s = await openSession(site.browser, { viewport: { width, height: 900 } });
    try {
      await s.page.emulateMedia({ colorScheme: theme });
      const problems: string[] = [];
      for (const route of routes) {
        await gotoHydrated(s.page, `${site.server.url}${route}`);
        expect(await s.page.evaluate(() => getComputedStyle(document.documentElement).colorScheme)).toContain(theme);
        problems.push(...(await sidewaysScrollers(s.page)).map((problem) => `${route}: ${problem}`));
      }
      expect(problems).toEqual([]);
      expect(s.console.problems()).toEqual([]);
    } finally {
      await s.close();
    }
  });
});

describe("list layouts", () => {
  it("phones: the header is one line above the search, and the first CVE comes before the charts, near the top", async () => {
    const s = await openSession(site.browser, { viewport: { width: 390, height: 844 } });
    try {
      await gotoHydrated(s.page, `${site.server.url}/cve-radar`);
      const box = async (selector: string) => (await s.page.locator(selector).boundingBox())!;
      const [brand, toggle, search] = [await box(".site-header__brand"), await box("[data-testid=theme-toggle]"), await box(".site-search")];
      expect(Math.abs(toggle.y + toggle.height / 2 - (brand.y + brand.height / 2))).toBeLessThan(brand.height);
      expect(search.y).toBeGreaterThanOrEqual(toggle.y + toggle.height);
      const firstRow = (await s.page.locator("[data-testid=cve-table] tbody tr").first().boundingBox())!;
      const firstChart = (await s.page.locator("[data-testid=chart]").first().boundingBox())!;
      expect(firstRow.y).toBeLessThan(firstChart.y);
      expect(firstRow.y).toBeLessThan(844);
      // The filters are one closed disclosure that counts what is in force.
      await gotoHydrated(s.page, `${site.server.url}/cve-radar?kev=1&severity=critical`);
      await expect.poll(() => s.page.locator(".filters-disclosure__summary").textContent()).toContain("2 active");
      expect(await s.page.locator("form.filters").isVisible()).toBe(false);
      await s.page.locator(".filters-disclosure__summary").click();
      expect(await s.page.locator("form.filters").isVisible()).toBe(true);
    } finally {
      await s.close();
    }
  });

  it.each([390, 1024, 1440, 1920])("at %i px no form field is cut, neither the box nor the text or placeholder it shows", async (width) => {
    const s = await openSession(site.browser, { viewport: { width, height: 900 } });
    try {
      for (const path of ["/cve-radar", "/ioc-radar"]) {
        await gotoHydrated(s.page, `${site.server.url}${path}`);
        const summary = s.page.locator(".filters-disclosure__summary");
        if (await summary.isVisible()) await summary.click();
        const cut = await s.page.evaluate(() => {
          const problems: string[] = [];
          const context = document.createElement("canvas").getContext("2d")!;
          for (const field of document.querySelectorAll<HTMLInputElement | HTMLSelectElement>("header input, main input, main select")) {
            if (field.type === "checkbox" || field.type === "hidden" || field.offsetParent === null) continue;
            const name = `${field.tagName.toLowerCase()}[name=${field.getAttribute("name") ?? field.id}]`;
            const box = field.getBoundingClientRect();
            if (box.left < 0 || box.right > window.innerWidth) problems.push(`${name}: box ${Math.round(box.left)}–${Math.round(box.right)} px`);
            const style = getComputedStyle(field);
            context.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
            const room = field.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
            // A select shows its chosen option beside its arrow; an input its text or placeholder.
            const shown = field instanceof HTMLSelectElement ? (field.selectedOptions[0]?.text ?? "") : field.value || field.placeholder;
            const arrow = field instanceof HTMLSelectElement ? 16 : 0;
            if (field.type !== "date" && context.measureText(shown).width + arrow > room + 1)
              problems.push(`${name}: "${shown}" needs more than ${Math.round(room)} px`);
            if (field.type === "date" && field.scrollWidth > field.clientWidth + 1)
              problems.push(`${name}: date ${field.scrollWidth} px in ${field.clientWidth} px`);
          }
          return problems;
        });
        expect(cut, path).toEqual([]);
      }
    } finally {
      await s.close();
    }
  });

  /**
   * Cells whose words must stay whole: a breakdown's (factor, points, evidence) at every width; from
   * md up every header too, and a sighting's values but its reference. Narrower, a table needs
   * "anywhere" to fit at all.
   */
  const wholeWords = (width: number) =>
    width < 1024
      ? "main .data-table--breakdown th, main .data-table--breakdown td"
      : "main .data-table th, main .data-table--breakdown td, main .data-table--words td:not(.break)";

  it.each(WIDTHS)("at %i px no table header is cut, and no header, breakdown or sighting but its reference is split inside a word", async (width) => {
    const s = await openSession(site.browser, { viewport: { width, height: 900 } });
    try {
      const split: string[] = [];
      for (const route of routes) {
        await gotoHydrated(s.page, `${site.server.url}${route}`);
        const found = await s.page.evaluate((selector) => {
          const problems: string[] = [];
          for (const link of document.querySelectorAll<HTMLElement>("main .data-table th .sort-link")) {
            if (link.offsetParent !== null && link.scrollWidth > link.clientWidth) problems.push(`header "${link.textContent}" cut`);
          }
          for (const cell of document.querySelectorAll<HTMLElement>(selector)) {
            if (cell.offsetParent === null) continue;
            const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
            for (let node = walker.nextNode(); node; node = walker.nextNode()) {
              // Words between spaces and hyphens: a line may end after a hyphen, never inside a word.
              for (const word of (node.textContent ?? "").matchAll(/[^\s-]+/g)) {
                const range = document.createRange();
                range.setStart(node, word.index);
                range.setEnd(node, word.index + word[0].length);
                const lines = new Set([...range.getClientRects()].map((rect) => Math.round(rect.top)));
                if (lines.size > 1) problems.push(`"${word[0]}" in ${cell.tagName.toLowerCase()} "${cell.textContent}"`);
              }
            }
          }
          return problems;
        }, wholeWords(width));
        split.push(...found.map((problem) => `${route}: ${problem}`));
      }
      expect(split).toEqual([]);
    } finally {
      await s.close();
    }
  });

  it("desktop: one line per indicator, the value cut in the middle with its whole text kept for copying", async () => {
    const s = await openSession(site.browser, { viewport: { width: 1440, height: 900 } });
    try {
      await gotoHydrated(s.page, `${site.server.url}/ioc-radar?type=sha256`);
      expect(await s.page.locator(".filters-disclosure__summary").isVisible()).toBe(false);
      expect(await s.page.locator("form.filters").isVisible()).toBe(true);
      const rows = s.page.locator("[data-testid=ioc-table] tbody tr");
      const heights = await rows.evaluateAll((trs) => trs.map((tr) => tr.getBoundingClientRect().height));
      expect(heights.length).toBe(25);
      // One line of text with a 24 px copy button: well under two lines of 14 px text plus padding.
      for (const height of heights) expect(height).toBeLessThan(48);
      const code = rows.first().locator("code");
      const shown = await code.evaluate((element) => {
        const head = element.querySelector(".ioc-value__head")!;
        return { text: element.textContent ?? "", clipped: head.scrollWidth > head.clientWidth };
      });
      expect(shown.text).toMatch(/^[0-9a-f]{64}$/);
      expect(shown.clipped).toBe(true);
      expect(await code.getAttribute("title")).toBe(shown.text);
      expect(await rows.first().locator("[data-copy-value]").getAttribute("data-copy-value")).toBe(shown.text);
    } finally {
      await s.close();
    }
  });
});
