import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { INDICATOR_TYPES } from "../../../shared/ioc/types";
import { SEVERITIES } from "../../../shared/cve/list-vocabulary";
import { severityToken, typeToken } from "../../../shared/ui/charts/palette";
import { PROJECT_ROOT } from "../../helpers/paths";
import { contrastRatio, deltaE, parseHex, simulate, VISIONS } from "./color";

/**
 * The design tokens (client/styles/tokens.css and the base colours of
 * app.css) read as the browser would: every `light-dark(light, dark)` pair.
 */
function tokens(file: string): Map<string, [string, string]> {
  const css = readFileSync(join(PROJECT_ROOT, "client/styles", file), "utf8");
  const found = new Map<string, [string, string]>();
  for (const match of css.matchAll(/(--[a-z0-9-]+):\s*light-dark\((#[0-9a-f]{6}),\s*(#[0-9a-f]{6})\)/gi)) {
    found.set(match[1]!, [match[2]!, match[3]!]);
  }
  return found;
}
const palette = tokens("tokens.css");
const base = tokens("app.css");
const THEMES = [
  ["light", 0],
  ["dark", 1],
] as const;

const color = (map: Map<string, [string, string]>, name: string, theme: 0 | 1) => {
  const pair = map.get(name);
  if (!pair) throw new Error(`no token ${name}`);
  return parseHex(pair[theme]);
};

/** The fills of one palette (the `-on` text colours excluded). */
const fills = (prefix: string) => [...palette.keys()].filter((name) => name.startsWith(prefix) && !name.endsWith("-on"));

describe("design tokens", () => {
  it("parses every palette token as a light-dark pair", () => {
    const declared = readFileSync(join(PROJECT_ROOT, "client/styles/tokens.css"), "utf8").match(/^\s*--[a-z0-9-]+:/gim) ?? [];
    expect(palette.size).toBe(declared.length);
    expect(palette.size).toBeGreaterThan(40);
  });

  it("has a colour and a text colour for every severity, verdict, indicator type and feed state", () => {
    const verdicts = ["malicious", "suspicious", "known", "benign-listed", "low", "unknown"];
    const states = ["ok", "warn", "bad", "idle"];
    const names = [
      ...SEVERITIES.map(severityToken),
      ...INDICATOR_TYPES.map(typeToken),
      ...verdicts.map((verdict) => `--verdict-${verdict}`),
      ...states.map((state) => `--source-${state}`),
    ];
    for (const name of names) {
      expect(palette.has(name), name).toBe(true);
      expect(palette.has(`${name}-on`), `${name}-on`).toBe(true);
    }
  });

  it.each(THEMES)("text on every palette colour has WCAG contrast ≥ 4.5:1 (%s theme)", (_name, theme) => {
    for (const name of [...palette.keys()].filter((token) => !token.endsWith("-on"))) {
      const ratio = contrastRatio(color(palette, name, theme), color(palette, `${name}-on`, theme));
      expect(ratio, `${name}-on on ${name}: ${ratio.toFixed(2)}`).toBeGreaterThanOrEqual(4.5);
    }
  });

  it.each(THEMES)("body, muted and link text have contrast ≥ 4.5:1 on the page and on cards (%s theme)", (_name, theme) => {
    for (const text of ["--text", "--muted", "--accent"]) {
      for (const ground of ["--bg", "--surface"]) {
        const ratio = contrastRatio(color(base, text, theme), color(base, ground, theme));
        expect(ratio, `${text} on ${ground}: ${ratio.toFixed(2)}`).toBeGreaterThanOrEqual(4.5);
      }
    }
  });

  // CIE76 ΔE between every two colours of a palette, as people with each dichromacy see them.
  // The type palette has eleven colours (labelled in every legend), so its bar is lower.
  it.each([
    ["--sev-", 10],
    ["--verdict-", 10],
    ["--source-", 10],
    ["--type-", 8],
  ] as const)("the %s palette stays distinguishable with colour-blindness (ΔE ≥ %d, both themes)", (prefix, minimum) => {
    const names = fills(prefix);
    expect(names.length).toBeGreaterThanOrEqual(4);
    for (const [, theme] of THEMES) {
      for (const vision of VISIONS) {
        for (const [i, a] of names.entries()) {
          for (const b of names.slice(i + 1)) {
            const difference = deltaE(simulate(color(palette, a, theme), vision), simulate(color(palette, b, theme), vision));
            expect(difference, `${a} / ${b}, ${vision}, theme ${theme}: ΔE ${difference.toFixed(1)}`).toBeGreaterThanOrEqual(minimum);
          }
        }
      }
    }
  });
});
