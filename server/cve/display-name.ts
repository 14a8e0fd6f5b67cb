/**
 * What feeds write where they have no vendor or product to name. None of
 * them is ever shown, filtered on or ranked as a vendor or product.
 */
const PLACEHOLDERS = new Set([
  "",
  "-",
  "--",
  "*",
  "?",
  "n/a",
  "na",
  "none",
  "null",
  "nil",
  "unknown",
  "unspecified",
  "not applicable",
  "not specified",
  "undefined",
]);

/**
 * The one rule for vendor and product names: the publisher's own spelling,
 * trimmed, with runs of whitespace made single; a placeholder is no name
 * (null). Which publisher's name a CVE shows is decided where the candidates
 * are (the CNA's, then CISA-ADP's, then NVD's; KEV's for a CVE whose record is
 * not imported yet).
 */
export function displayName(name: string | null | undefined): string | null {
  if (typeof name !== "string") return null;
  const trimmed = name.trim().replace(/\s+/g, " ");
  return PLACEHOLDERS.has(trimmed.toLowerCase()) ? null : trimmed;
}
