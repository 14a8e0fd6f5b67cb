import type { Kysely } from "kysely";
import type { HomeData } from "../../shared/types/home";
import type { CveService } from "../cve/service";
import type { Database } from "../db/schema";
import type { IocService } from "../ioc/service";

/** What every server loader receives as `context`. */
export interface RequestContext {
  db: Kysely<Database>;
  now: () => Date;
  cves: CveService;
  /** The home page's overview at a given time. */
  overview: (now: Date) => Promise<HomeData>;
  iocs: IocService;
  /** Set when the request must be answered with an error screen before any data loads. */
  forcedError?: { status: number; message: string };
}
