import type { Kysely } from "kysely";
import type { WarninglistType } from "../../shared/ioc/types";
import type { WarninglistInput } from "../feeds/warninglists/parse";
import { buildWarninglistMatcherInTurns, type WarninglistMatcher } from "./warninglist-match";
import type { Database } from "../db/schema";

const MATCHER_TYPES: ReadonlySet<string> = new Set<WarninglistType>(["cidr", "string", "hostname", "substring", "regex"]);

function parseJsonList(text: string): string[] {
  const value: unknown = JSON.parse(text);
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : [];
}

/** The MISP warninglists in the database as one matcher (built in slices, in well under a second; cache it). */
export async function loadWarninglistMatcher(db: Kysely<Database>): Promise<WarninglistMatcher> {
  const lists = await db.selectFrom("warninglists").select(["name", "type", "matching_attributes"]).orderBy("name").execute();
  const entries = new Map<string, string[]>();
  for (const row of await db.selectFrom("warninglist_entries").select(["list_name", "value"]).execute()) {
    const values = entries.get(row.list_name);
    if (values) values.push(row.value);
    else entries.set(row.list_name, [row.value]);
  }
  const inputs: WarninglistInput[] = lists
    .filter((list) => MATCHER_TYPES.has(list.type))
    .map((list) => ({
      name: list.name,
      type: list.type as WarninglistType,
      entries: entries.get(list.name) ?? [],
      matchingAttributes: parseJsonList(list.matching_attributes),
    }));
  return buildWarninglistMatcherInTurns(inputs);
}
