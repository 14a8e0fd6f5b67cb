import { Migrator, type Kysely, type Migration, type MigrationProvider } from "kysely";
import { dialectOf } from "./dialect";
import * as m0001 from "./migrations/0001-sources";
import * as m0002 from "./migrations/0002-cves";
import * as m0003 from "./migrations/0003-indicators";
import * as m0004 from "./migrations/0004-cve-radar-indexes";
import * as m0005 from "./migrations/0005-warninglist-title";
import * as m0006 from "./migrations/0006-ioc-radar-indexes";
import * as m0007 from "./migrations/0007-schema-v2";
import * as m0008 from "./migrations/0008-indicator-stats";
import * as m0009 from "./migrations/0009-cve-kev-sort-indexes";
import * as m0010 from "./migrations/0010-data-version-notify";
import * as m0011 from "./migrations/0011-cve-order-indexes";
import * as m0012 from "./migrations/0012-cve-stats";
import * as m0013 from "./migrations/0013-cve-exploits-key";
import * as m0014 from "./migrations/0014-cve-version-lists";
import * as m0015 from "./migrations/0015-cve-cwes-priority";
import * as m0016 from "./migrations/0016-indicator-source-stats";
import * as m0017 from "./migrations/0017-cve-stats-indexes";
import * as m0018 from "./migrations/0018-sources-notify";
import * as m0019 from "./migrations/0019-warninglist-matcher";
import * as m0020 from "./migrations/0020-suggestion-indexes";
import * as m0021 from "./migrations/0021-sources-published-at";
import * as m0022 from "./migrations/0022-stats-key-indexes";
import * as m0023 from "./migrations/0023-cve-search-documents";

/**
 * Migrations are listed here rather than discovered on disk so that they work
 * the same from TypeScript sources, from a bundle and in tests.
 */
export const MIGRATIONS: Readonly<Record<string, Migration>> = {
  "0001-sources": m0001,
  "0002-cves": m0002,
  "0003-indicators": m0003,
  "0004-cve-radar-indexes": m0004,
  "0005-warninglist-title": m0005,
  "0006-ioc-radar-indexes": m0006,
  "0007-schema-v2": m0007,
  "0008-indicator-stats": m0008,
  "0009-cve-kev-sort-indexes": m0009,
  "0010-data-version-notify": m0010,
  "0011-cve-order-indexes": m0011,
  "0012-cve-stats": m0012,
  "0013-cve-exploits-key": m0013,
  "0014-cve-version-lists": m0014,
  "0015-cve-cwes-priority": m0015,
  "0016-indicator-source-stats": m0016,
  "0017-cve-stats-indexes": m0017,
  "0018-sources-notify": m0018,
  "0019-warninglist-matcher": m0019,
  "0020-suggestion-indexes": m0020,
  "0021-sources-published-at": m0021,
  "0022-stats-key-indexes": m0022,
  "0023-cve-search-documents": m0023,
};

const provider: MigrationProvider = { getMigrations: async () => ({ ...MIGRATIONS }) };

/** Applies every pending migration in order; returns the names applied by this call. */
export async function migrateToLatest(db: Kysely<any>): Promise<string[]> {
  await dialectOf(db).assertUsable(db);
  const { error, results } = await new Migrator({ db, provider }).migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  const applied = (results ?? []).filter((r) => r.status === "Success").map((r) => r.migrationName);
  if (applied.length > 0) await dialectOf(db).analyze(db);
  return applied;
}
