import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { describe, expect, inject, it } from "vitest";
import { gotoHydrated, openSession } from "./helpers/browser";
import { e2eSite } from "./helpers/site";

/** axe-core, run in the page, finds no WCAG 2.1 A/AA violation on any route, in either theme, on a desktop and a phone. */

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");
const ROUTES = [
  "/",
  "/cve-radar",
  "/cve-radar?kev=1&severity=critical",
  "/cve-radar/CVE-2024-3400",
  "/cve-radar/CVE-2021-44228",
  "/ioc-radar",
  "/ioc-radar/8.8.8.8",
  "/no-such-page",
];

interface AxeViolation {
  id: string;
  help: string;
  nodes: Array<{ target: string[] }>;
}

const site = e2eSite({ DATABASE_PATH: inject("snapshotDatabase"), SYNC_ENABLED: "false" });

const LAYOUTS = [
  { scheme: "light", width: 1280, height: 720 },
  { scheme: "dark", width: 1280, height: 720 },
  // Below the sm breakpoint tables become cards: a different page for assistive technology.
  { scheme: "light", width: 390, height: 844 },
] as const;

describe.each(LAYOUTS)("accessibility ($scheme theme, $width px)", ({ scheme, width, height }) => {
  it.each(ROUTES)("%s has no axe violation", async (route) => {
    const s = await openSession(site.browser, { viewport: { width, height } });
    try {
      await s.page.emulateMedia({ colorScheme: scheme });
      await gotoHydrated(s.page, `${site.server.url}${route}`);
      // Evaluated through the DevTools protocol: the page's CSP rightly refuses an injected inline script.
      await s.page.evaluate(AXE_SOURCE);
      const violations = await s.page.evaluate(async () => {
        const axe = (window as unknown as { axe: { run: (context: Document, options: object) => Promise<{ violations: AxeViolation[] }> } }).axe;
        const result = await axe.run(document, { runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"] } });
        return result.violations.map((v) => ({ id: v.id, help: v.help, nodes: v.nodes.slice(0, 3).map((n) => n.target.join(" ")) }));
      });
      expect(violations).toEqual([]);
    } finally {
      await s.close();
    }
  });
});
