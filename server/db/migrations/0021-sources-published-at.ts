import { sql, type Kysely } from "kysely";

/**
 * `sources.published_at`: when the publisher last updated the list it served,
 * as the files themselves say (abuse.ch's "Last updated" header line, the
 * newest file inside a GitHub archive: Maltrail's, Trickest's, the MISP
 * warninglists'; the CWE catalogue's Date). A source
 * whose records carry no dates was judged fresh by its last successful
 * import: a MalwareBazaar list of 2023 imported today showed as "fresh".
 *
 * Forgetting these sources' file fingerprints and validators makes their
 * next import read the files again, even unchanged, and so record the date;
 * until then they are judged as before.
 */
const STAMPED_SOURCES = ["threatfox", "urlhaus", "feodotracker", "malwarebazaar", "maltrail", "mitre-cwe", "trickest-poc", "misp-warninglists"];

export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table sources add column published_at text`.execute(db);
  await sql`delete from source_files where source in (${sql.join(STAMPED_SOURCES)})`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table sources drop column published_at`.execute(db);
}
