import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { startE2eServer, type E2eServer } from "../tests/e2e/helpers/server";

const PROJECT_ROOT = resolve(import.meta.dirname, "..");
export const DEFAULT_DATABASE = resolve(PROJECT_ROOT, ".bench/scaled.sqlite");

/**
 * The production server (dist/ from `npm run build`) on a loopback port,
 * serving an existing database: the scaled real data from bench/generate.ts
 * unless told otherwise. The feed scheduler stays off, so nothing leaves the
 * machine.
 */
export async function startSite(databasePath: string): Promise<E2eServer> {
  if (!existsSync(databasePath)) {
    throw new Error(`No database at ${databasePath}: run \`npx tsx bench/generate.ts --out ${databasePath}\` first (or pass --db).`);
  }
  return startE2eServer({ DATABASE_PATH: databasePath, SYNC_ENABLED: "false", LOG_LEVEL: "warn" });
}

/** One page of each of the five routes, with real records from the database the server reads. */
export async function siteRoutes(server: E2eServer): Promise<string[]> {
  const iocs = (await (await fetch(`${server.url}/api/v1/iocs?type=url&per_page=1`)).json()) as { rows: Array<{ value: string }> };
  const ioc = iocs.rows[0]?.value ?? "8.8.8.8";
  return ["/", "/cve-radar", "/cve-radar/CVE-2024-3400", "/ioc-radar", `/ioc-radar/${encodeURIComponent(ioc)}`];
}
