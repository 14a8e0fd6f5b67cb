import { toIsoUtc } from "./common";

/** abuse.ch's header line: `# Last updated: 2023-11-23 04:18:36 UTC`. */
const LAST_UPDATED = /^#+[ \t]*Last updated:[ \t]*(\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2})/m;

/**
 * When abuse.ch generated an export (its CSV files and plain lists), from
 * the comment block at its top; null when the text has no such line. The
 * rows of a plain hash list carry no date of their own, so this is all that
 * says how old the list is.
 */
export function abuseChLastUpdated(head: string): string | null {
  const match = LAST_UPDATED.exec(head);
  return match ? toIsoUtc(match[1]) : null;
}
