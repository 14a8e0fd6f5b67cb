import { writeFile } from "node:fs/promises";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrateToLatest } from "../../../server/db/migrate";
import { loadPipelineConfig } from "../../../server/pipeline/config";
import { openPostgresImportStore, type ImportStore } from "../../../server/pipeline/engine/store";
import { syncSource } from "../../../server/pipeline/sync";
import { recordingLogger, snapshot } from "../../helpers/feed-server";
import { createPostgresDatabase, startPostgresCluster, type PostgresCluster, type TestPostgresDatabase } from "../../helpers/postgres-cluster";

/**
 * An import's scratch tables on PostgreSQL are unlogged, whoever creates
 * them: the COPY targets and the tables the merges create as they go. With
 * the default `wal_level = replica` a logged table's rows would also be
 * written to the WAL and shipped to every standby. An event trigger records
 * each table created in `staging` with its persistence as it is created
 * (the run drops them before it ends).
 */
const dir = mkdtempSync(join(tmpdir(), "threat-radar-staging-tables-"));
let cluster: PostgresCluster;
let database: TestPostgresDatabase;
let store: ImportStore;

beforeAll(async () => {
  cluster = await startPostgresCluster();
  database = await createPostgresDatabase(cluster.url);
  store = openPostgresImportStore(database.url);
  await migrateToLatest(store.db);
  await sql`create table created_staging (name text not null, persistence "char" not null)`.execute(store.db);
  await sql`
    create function record_staging() returns event_trigger language plpgsql as $$
    begin
      insert into created_staging (name, persistence)
      select c.relname, c.relpersistence from pg_event_trigger_ddl_commands() d join pg_class c on c.oid = d.objid
      where d.schema_name = 'staging' and d.object_type = 'table';
    end $$`.execute(store.db);
  await sql`create event trigger record_staging on ddl_command_end when tag in ('CREATE TABLE', 'CREATE TABLE AS') execute function record_staging()`.execute(
    store.db,
  );
});

afterAll(async () => {
  await store?.close();
  await database?.drop();
  await cluster?.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function epssFile(): Promise<string> {
  const lines = [
    "#model_version:v2025.03.14,score_date:2026-11-20T00:00:00+0000",
    "cve,epss,percentile",
    "CVE-2024-3400,0.94335,0.99954",
    "CVE-2023-52001,0.2,0.5",
  ];
  const path = join(dir, "epss.csv.gz");
  await writeFile(path, gzipSync(`${lines.join("\n")}\n`));
  return path;
}

describe("an import's staging tables on PostgreSQL", () => {
  it("are all unlogged: those COPY fills and those the merges create", async () => {
    const env = {
      SOURCE_CISA_KEV_URL: snapshot("cisa-kev", "known_exploited_vulnerabilities.json"),
      SOURCE_EPSS_URL: await epssFile(),
      SOURCE_FEODOTRACKER_URL: snapshot("abusech", "feodotracker_ipblocklist_2024-04-04.csv"),
    };
    for (const source of ["cisa-kev", "epss", "feodotracker"]) {
      const outcome = await syncSource(source, {
        store,
        config: loadPipelineConfig(env),
        logger: recordingLogger().logger,
        now: () => new Date("2026-11-21T00:00:00Z"),
      });
      expect(outcome.status, outcome.error ?? "").toBe("ok");
    }
    const { rows } = await sql<{ name: string; persistence: string }>`select name, persistence from created_staging order by name`.execute(store.db);
    const names = new Set(rows.map((row) => row.name));
    // The merges' own tables, besides the COPY targets: KEV's changed records and rescore, EPSS's day and changed
    // scores, an IOC merge's mapped, changed, delisted and touched rows.
    for (const name of ["changed_records", "rescore", "scores_by_day", "changed_scores", "mapped", "changed", "delisted", "touched"])
      expect(names).toContain(name);
    expect(rows.filter((row) => row.persistence !== "u")).toEqual([]);
  });
});
