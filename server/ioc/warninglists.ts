import type { Kysely } from "kysely";
import type { WarninglistType } from "../../shared/ioc/types";
import { createWarninglistMatcherBuilder, warninglistMatcherFromState, type WarninglistMatcher, type WarninglistMatcherState } from "./warninglist-match";
import { decodeWarninglistSnapshot, encodeWarninglistSnapshot, WARNINGLIST_SNAPSHOT_FORMAT } from "./warninglist-snapshot";
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

/** The MISP warninglists' entries in the database, packed (a fraction of a second on the full set). */
async function packWarninglists(db: Kysely<Database>): Promise<WarninglistMatcherState> {
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
  return builder.pack();
}

/** Packs the entries as they now stand and stores them: the warninglists' import calls it in the transaction that wrote them. */
export async function saveWarninglistSnapshot(db: Kysely<Database>): Promise<void> {
  const data = encodeWarninglistSnapshot(await packWarninglists(db));
  await db.deleteFrom("warninglist_matcher").execute();
  await db.insertInto("warninglist_matcher").values({ format: WARNINGLIST_SNAPSHOT_FORMAT, data }).execute();
}

/** Whether a snapshot this build can read is stored (one of another format is packed again). */
export async function hasWarninglistSnapshot(db: Kysely<Database>): Promise<boolean> {
  const row = await db.selectFrom("warninglist_matcher").select("format").where("format", "=", WARNINGLIST_SNAPSHOT_FORMAT).executeTakeFirst();
  return row !== undefined;
}

/**
 * The MISP warninglists in the database as one matcher: the snapshot their
 * import stored, or, without a usable one (a database migrated since their
 * last import), built from the entries. Cache it.
 */
export async function loadWarninglistMatcher(db: Kysely<Database>): Promise<WarninglistMatcher> {
  const row = await db.selectFrom("warninglist_matcher").select("data").where("format", "=", WARNINGLIST_SNAPSHOT_FORMAT).executeTakeFirst();
  const stored = row === undefined ? null : decodeWarninglistSnapshot(row.data);
  return warninglistMatcherFromState(stored ?? (await packWarninglists(db)));
}
