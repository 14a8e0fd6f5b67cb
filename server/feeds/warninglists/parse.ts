import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import type { WarninglistType } from "../../../shared/ioc/types";
import { accepted, rejected, type ParseResult } from "../toolkit/result";

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

/** Validates a parsed list.json; a list that does not fit is rejected with what is wrong. */
export function parseWarninglist(json: unknown, name: string, location: string): ParseResult<Warninglist> {
  const result = listFileSchema.safeParse(json);
  if (!result.success) {
    const issue = result.error.issues[0];
    return rejected(location, `warninglist ${name}: ${issue?.path.join(".") ?? ""} ${issue?.message ?? "invalid"}`.trim());
  }
  const file = result.data;
  return accepted({
    name,
    title: file.name,
    description: file.description,
    version: file.version,
    type: file.type,
    matchingAttributes: file.matching_attributes ?? [],
    entries: file.list.map((entry) => entry.trim()).filter((entry) => entry !== ""),
  });
}

/** A list.json's text; text that is not JSON is rejected like a list that does not fit. */
export function parseWarninglistText(text: string, name: string, location: string): ParseResult<Warninglist> {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return rejected(location, (error as Error).message);
  }
  return parseWarninglist(json, name, location);
}

export interface LoadedWarninglists {
  lists: Warninglist[];
  /** Lists that could not be read or are invalid, by file; the others still load. */
  rejected: Array<{ location: string; reason: string }>;
}

/** Reads every `<dir>/<name>/list.json` (the `lists/` folder of misp-warninglists). */
export async function loadWarninglists(listsDir: string): Promise<LoadedWarninglists> {
  const lists: Warninglist[] = [];
  const problems: LoadedWarninglists["rejected"] = [];
  const names = (await readdir(listsDir, { withFileTypes: true }))
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
  for (const name of names) {
    const file = path.join(listsDir, name, "list.json");
    let result: ParseResult<Warninglist>;
    try {
      result = parseWarninglistText(await readFile(file, "utf8"), name, file);
    } catch (error) {
      result = rejected(file, (error as Error).message);
    }
    if (result.ok) lists.push(result.record);
    else problems.push({ location: result.location, reason: result.reason });
  }
  return { lists, rejected: problems };
}
