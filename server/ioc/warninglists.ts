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
  const inputs: WarninglistInput[] = [];
  // One list per query, off the primary key: all 269,000 values of the full import in one result
  // crossed the read pool at once and left the server about 235 MB larger; the largest list holds 63,000.
  for (const list of lists.filter((candidate) => MATCHER_TYPES.has(candidate.type))) {
    const rows = await db.selectFrom("warninglist_entries").select("value").where("list_name", "=", list.name).execute();
    inputs.push({
      name: list.name,
      type: list.type as WarninglistType,
      entries: rows.map((row) => row.value),
      matchingAttributes: parseJsonList(list.matching_attributes),
    });
  }
  return buildWarninglistMatcherInTurns(inputs);
}
