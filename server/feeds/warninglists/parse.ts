import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import type { WarninglistType } from "../../../shared/ioc/types";

/** What the warninglist matcher (server/ioc/warninglist-match.ts) needs of a list. */
export interface WarninglistInput {
  name: string;
  type: WarninglistType;
  entries: readonly string[];
  matchingAttributes?: readonly string[];
}

/**
 * One MISP warninglist (`lists/<name>/list.json`). `name` is the directory
 * name, a stable id ("public-dns-v4"); `title` is the list's own
 * human-readable name. Ready to hand to `buildWarninglistMatcher`.
 */
export interface Warninglist extends WarninglistInput {
  name: string;
  title: string;
  description: string;
  version: number;
  type: WarninglistType;
  matchingAttributes: string[];
  entries: string[];
}

const listFileSchema = z.object({
  name: z.string(),
  description: z.string(),
  version: z.union([z.number().int(), z.string().regex(/^\d+$/).transform(Number)]),
  type: z.enum(["cidr", "string", "hostname", "substring", "regex"]),
  matching_attributes: z.array(z.string()).optional(),
  // MISP also accepts `{ "<value>": "<comment>" }` for lists with comments.
  list: z.union([z.array(z.string()), z.record(z.string(), z.unknown()).transform((values) => Object.keys(values))]),
});

/** Validates a parsed list.json; throws an Error naming the problem. */
export function parseWarninglist(json: unknown, name: string): Warninglist {
  const result = listFileSchema.safeParse(json);
  if (!result.success) {
    const issue = result.error.issues[0];
    throw new Error(`warninglist ${name}: ${issue?.path.join(".") ?? ""} ${issue?.message ?? "invalid"}`.trim());
  }
  const file = result.data;
  return {
    name,
    title: file.name,
    description: file.description,
    version: file.version,
    type: file.type,
    matchingAttributes: file.matching_attributes ?? [],
    entries: file.list.map((entry) => entry.trim()).filter((entry) => entry !== ""),
  };
}

export interface LoadedWarninglists {
  lists: Warninglist[];
  /** Lists that could not be read or are invalid; the others still load. */
  errors: Array<{ name: string; reason: string }>;
}

/** Reads every `<dir>/<name>/list.json` (the `lists/` folder of misp-warninglists). */
export async function loadWarninglists(listsDir: string): Promise<LoadedWarninglists> {
  const lists: Warninglist[] = [];
  const errors: LoadedWarninglists["errors"] = [];
  const names = (await readdir(listsDir, { withFileTypes: true }))
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
  for (const name of names) {
    const file = path.join(listsDir, name, "list.json");
    try {
      lists.push(parseWarninglist(JSON.parse(await readFile(file, "utf8")), name));
    } catch (error) {
      errors.push({ name, reason: (error as Error).message });
    }
  }
  return { lists, errors };
}
