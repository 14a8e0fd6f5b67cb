import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { BREAKPOINTS, type Breakpoint } from "../../../shared/constants";
import { minWidthQuery } from "../../../shared/ui/layout/breakpoints";
import { PROJECT_ROOT } from "../../helpers/paths";

/**
 * The stylesheet cannot import the shared constants, so this keeps it in step:
 * every width in a media query of client/styles/app.css is one of BREAKPOINTS,
 * the same values the chart component reads through matchMedia.
 */
const css = readFileSync(resolve(PROJECT_ROOT, "client/styles/app.css"), "utf8");
const preludes = [...css.matchAll(/@media([^{]+)\{/g)].map((match) => match[1]!.trim());
const allowed: number[] = Object.values(BREAKPOINTS);

describe("breakpoints", () => {
  it("are the spec's values", () => {
    expect(BREAKPOINTS).toEqual({ sm: 600, md: 1024, lg: 1440, xl: 1920 });
  });

  it("the stylesheet has width media queries to check", () => {
    expect(preludes.filter((prelude) => /width/.test(prelude)).length).toBeGreaterThanOrEqual(5);
  });

  it.each(preludes)("@media %s uses only the shared breakpoint values", (prelude) => {
    // Every feature that speaks of the viewport's width: min-width, max-width and the range form.
    const widthFeatures = [...prelude.matchAll(/\(([^()]*\bwidth\b[^()]*)\)/g)].map((match) => match[1]!);
    for (const feature of widthFeatures) {
      const lengths = [...feature.matchAll(/(\d+(?:\.\d+)?)\s*([a-z%]+)/g)];
      expect(lengths.length, feature).toBeGreaterThan(0);
      for (const [, value, unit] of lengths) {
        expect(unit, feature).toBe("px");
        expect(allowed, feature).toContain(Number(value));
      }
      // A max-width would have to be a breakpoint minus something to not overlap the min-width rules;
      // the range form `width < N` says it with the breakpoint itself.
      expect(feature, feature).not.toMatch(/max-width/);
    }
  });

  it("min-width queries are written exactly as the runtime's matchMedia query", () => {
    const minWidths = preludes.flatMap((prelude) => [...prelude.matchAll(/\(min-width:[^)]*\)/g)].map((match) => match[0]));
    const runtime = (Object.keys(BREAKPOINTS) as Breakpoint[]).map(minWidthQuery);
    for (const query of minWidths) expect(runtime).toContain(query);
  });
});
