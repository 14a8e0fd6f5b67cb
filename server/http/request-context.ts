import type { Kysely } from "kysely";
import type { CveService } from "../cve/service";
import type { Database } from "../db/schema";
import type { IocService } from "../ioc/service";

/** What every server loader receives as `context`. */
export interface RequestContext {
  db: Kysely<Database>;
  now: () => Date;
  cves: CveService;
  iocs: IocService;
  /** Set when the request must be answered with an error screen before any data loads. */
  forcedError?: { status: number; message: string };
}
