import type { Kysely } from "kysely";
import type { WarninglistType } from "../../shared/ioc/types";
import { createWarninglistMatcherBuilder, type WarninglistMatcher } from "./warninglist-match";
import type { Database } from "../db/schema";

const MATCHER_TYPES: ReadonlySet<string> = new Set<WarninglistType>(["cidr", "string", "hostname", "substring", "regex"]);

/**
 * Entries read per query. The full MISP set holds 269,000 entries, 63,000 in
 * its largest list; read a list at a time, each result crossed from the read
 * pool's thread as tens of thousands of row objects at once, and V8 grew both
 * threads' heaps by over 100 MB to hold them, memory it kept long after the
 * matcher was built. Pages this size stay short-lived garbage, and every
 * query is a turn of the event loop for the requests waiting beside it.
 */
const ENTRIES_PER_QUERY = 5_000;

function parseJsonList(text: string): string[] {
  const value: unknown = JSON.parse(text);
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : [];
}

/** The MISP warninglists in the database as one matcher (a fraction of a second on the full set; cache it). */
export async function loadWarninglistMatcher(db: Kysely<Database>): Promise<WarninglistMatcher> {
  const lists = await db.selectFrom("warninglists").select(["name", "type", "matching_attributes"]).orderBy("name").execute();
  const builder = createWarninglistMatcherBuilder();
  for (const list of lists.filter((candidate) => MATCHER_TYPES.has(candidate.type))) {
    const index = builder.addList({ name: list.name, type: list.type as WarninglistType, matchingAttributes: parseJsonList(list.matching_attributes) });
    // Keyset pages along the primary key (list_name, value).
    let after: string | null = null;
    for (;;) {
      let page = db.selectFrom("warninglist_entries").select("value").where("list_name", "=", list.name);
      if (after !== null) page = page.where("value", ">", after);
      const rows = await page.orderBy("value").limit(ENTRIES_PER_QUERY).execute();
      builder.addEntries(
        index,
        rows.map((row) => row.value),
      );
      // A connection outside the read pool (tests, the CLIs) answers without yielding.
      await new Promise((resume) => setImmediate(resume));
      if (rows.length < ENTRIES_PER_QUERY) break;
      after = (rows[rows.length - 1] as { value: string }).value;
    }
  }
  return builder.finish();
}
