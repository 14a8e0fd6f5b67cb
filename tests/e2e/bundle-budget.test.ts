import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROUTE_JS_BUDGET_GZIP, routeBundles } from "../../bench/route-bundles";
import { pageRoutes } from "../../shared/routes/page-routes";
import { PROJECT_ROOT } from "./helpers/server";

/**
 * A size budget on the production build (dist/, as every e2e file uses):
 * the JavaScript a route needs before its load event, gzip, from the Vite
 * manifest. Not a timing: the same build always gives the same bytes.
 */
describe("JavaScript budget per route", () => {
  it("measures every route of the route table, starting from its page's lazy chunk", () => {
    const manifestPath = join(PROJECT_ROOT, "dist/client/.vite/manifest.json");
    const manifest = JSON.parse(readFileSync(manifestPath, "utf8")) as Record<string, { file: string; isDynamicEntry?: boolean }>;
    const bundles = routeBundles(PROJECT_ROOT);
    expect(bundles.map((bundle) => bundle.route)).toEqual(pageRoutes.map((page) => page.path));
    for (const bundle of bundles) {
      expect(manifest[bundle.page]?.isDynamicEntry, bundle.page).toBe(true);
      expect(bundle.files).toContain(manifest[bundle.page]!.file);
    }
  });

  it.each(routeBundles(PROJECT_ROOT).map((bundle) => [bundle.route, bundle] as const))(
    "%s loads at most 120 kB of gzip JavaScript before its load event",
    (_route, bundle) => {
      expect(bundle.files.length).toBeGreaterThan(1);
      expect(bundle.gzipBytes, `${bundle.files.join(", ")}`).toBeLessThanOrEqual(ROUTE_JS_BUDGET_GZIP);
    },
  );

  // zod names its error classes with strings, which survive minification.
  it("keeps the validation library (zod) out of the browser", () => {
    const bundles = routeBundles(PROJECT_ROOT);
    for (const bundle of bundles) {
      for (const file of bundle.files) {
        expect(readFileSync(join(PROJECT_ROOT, "dist/client", file), "utf8"), `${bundle.route}: ${file}`).not.toContain("ZodError");
      }
    }
  });
});
