import { sql, type Kysely } from "kysely";
import { dialectOf } from "../dialect";

/**
 * `warninglist_matcher`: the warninglist matcher packed by the warninglists'
 * import (server/ioc/warninglist-snapshot.ts). Built from the 269,049 entries
 * of the full set, it took a web process 0.4–0.6 s and about 80 MB of heap on
 * the first IOC view after every start.
 *
 * Forgetting the warninglists' file fingerprints and validators makes their
 * next import read the files again, even unchanged, and so pack the matcher
 * that this table starts without; until then the web process builds it from
 * the entries, as before. PostgreSQL needs no notify trigger for the table
 * (0010): it is written only in a transaction that writes the entries.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const dialect = dialectOf(db);
  await sql`
    create table warninglist_matcher (
      format ${sql.raw(dialect.integerType)} not null,
      data ${sql.raw(dialect.blobType)} not null
    )`.execute(db);
  await sql`delete from source_files where source = 'misp-warninglists'`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop table if exists warninglist_matcher`.execute(db);
}
