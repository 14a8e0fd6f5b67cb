import { deserialize, serialize } from "node:v8";
import type { WarninglistMatcherState } from "./warninglist-match";

/**
 * The packed warninglist matcher as bytes. V8's serializer writes strings,
 * typed arrays, Maps and BigInts as they are and reads them back in a few
 * milliseconds, where building the matcher from the full set's entries takes
 * 0.4–0.6 s. Node reads what an older Node wrote; what it cannot read, or a
 * snapshot of another `WARNINGLIST_SNAPSHOT_FORMAT`, is ignored and the
 * matcher built from the entries instead.
 */

/** Raised whenever `WarninglistMatcherState` changes shape. */
export const WARNINGLIST_SNAPSHOT_FORMAT = 1;

export function encodeWarninglistSnapshot(state: WarninglistMatcherState): Buffer {
  return serialize(state);
}

function isPackedStrings(value: unknown): boolean {
  const strings = value as { text?: unknown; offsets?: unknown } | null;
  return typeof strings?.text === "string" && strings.offsets instanceof Uint32Array;
}

function isKeyTable(value: unknown): boolean {
  const table = value as { keys?: unknown; lists?: unknown; spellings?: unknown } | null;
  return isPackedStrings(table?.keys) && table?.lists instanceof Uint16Array && table.spellings instanceof Map;
}

function isIntervalIndex(value: unknown): boolean {
  const index = value as { lists?: unknown; prefixes?: unknown; entries?: unknown; starts?: unknown } | null;
  return index?.lists instanceof Uint16Array && index.prefixes instanceof Uint8Array && isPackedStrings(index.entries) && index.starts !== undefined;
}

/** The state in `data`, or null when it is not a snapshot this build can use. */
export function decodeWarninglistSnapshot(data: Uint8Array): WarninglistMatcherState | null {
  let state: unknown;
  try {
    state = deserialize(data);
  } catch {
    return null;
  }
  const candidate = state as Partial<Record<keyof WarninglistMatcherState, unknown>> | null;
  const usable =
    Array.isArray(candidate?.lists) &&
    isIntervalIndex(candidate.v4) &&
    isIntervalIndex(candidate.v6) &&
    isKeyTable(candidate.strings) &&
    isKeyTable(candidate.hostnames) &&
    Array.isArray(candidate.substrings) &&
    Array.isArray(candidate.regexes) &&
    Array.isArray(candidate.skipped);
  return usable ? (state as WarninglistMatcherState) : null;
}
