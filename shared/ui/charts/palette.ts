/**
 * The charts' colours are the design tokens of client/styles/tokens.css, named
 * here and resolved in the browser, so a chart, a legend and a badge show a
 * severity (or type) in the same colour, in both themes.
 */

const SEVERITY_KEYS = ["critical", "high", "medium", "low", "none"] as const;

/** The token of a CVSS severity (any case); an unknown one is drawn as "none". */
export function severityToken(severity: string): string {
  const key = severity.toLowerCase();
  return `--sev-${(SEVERITY_KEYS as readonly string[]).includes(key) ? key : "none"}`;
}

/** The token of an indicator type; custom properties cannot hold ":" so ip:port is ip-port. */
export function typeToken(type: string): string {
  return `--type-${type.replace(/[^a-z0-9]+/gi, "-")}`;
}

/** Plain single-series bars (top vendors, top malware families): the site's accent. */
export const NEUTRAL_TOKEN = "--accent";

/**
 * A token's colour as the page shows it now. A probe element resolves
 * `light-dark()` for the current theme (reading the custom property itself
 * would return the unresolved text); returns undefined outside a browser.
 */
export function resolveToken(token: string): string | undefined {
  if (typeof document === "undefined") return undefined;
  const probe = document.createElement("span");
  probe.style.color = `var(${token})`;
  probe.style.display = "none";
  document.body.append(probe);
  const color = getComputedStyle(probe).color;
  probe.remove();
  return color || undefined;
}
