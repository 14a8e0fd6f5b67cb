import type { Kysely } from "kysely";
import type { Database } from "../db/schema";

/** What every server loader receives as `context`. */
export interface RequestContext {
  db: Kysely<Database>;
  now: () => Date;
  /** Set when the request must be answered with an error screen before any data loads. */
  forcedError?: { status: number; message: string };
}
