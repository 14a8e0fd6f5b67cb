import type { TestProject } from "vitest/node";
import { migrateToLatest } from "../../../server/db/migrate";
import { openDatabase } from "../../../server/db/target";
import { openPostgresImportStore } from "../../../server/pipeline/engine/store";
import { createPostgresDatabase, startPostgresCluster } from "../../helpers/postgres-cluster";
import { importSnapshotsInto } from "./snapshot-database";

declare module "vitest" {
  export interface ProvidedContext {
    /** The throw-away cluster's superuser URL: createTestApp makes a database per app in it. */
    postgresCluster: string;
    /** A database in it holding the snapshot subset, the PostgreSQL twin of `snapshotDatabase`. */
    snapshotPostgres: string;
    /** A migrated, otherwise empty database of it that fresh test databases are copied from. */
    postgresTemplate: string;
  }
}

/** Migrates a new database once and closes it, so that databases can be created from it (a template must have no connections). */
async function migratedTemplate(clusterUrl: string): Promise<string> {
  const template = await createPostgresDatabase(clusterUrl);
  const handle = openDatabase({ kind: "postgres", url: template.url, poolSize: 1 });
  try {
    await migrateToLatest(handle.db);
  } finally {
    await handle.close();
  }
  return new URL(template.url).pathname.slice(1);
}

/**
 * The integration-pg project's cluster: started once for the run, with the
 * snapshot subset imported into it as the SQLite setup imports it (same
 * sources, same clock, same sync path), and stopped at the end. Nothing is
 * cached between runs: the cluster lives in a temp folder.
 */
export default async function setup(project: TestProject) {
  const cluster = await startPostgresCluster();
  try {
    const snapshot = await createPostgresDatabase(cluster.url);
    await importSnapshotsInto(openPostgresImportStore(snapshot.url));
    const template = await migratedTemplate(cluster.url);
    project.provide("postgresCluster", cluster.url);
    project.provide("postgresTemplate", template);
    project.provide("snapshotPostgres", snapshot.url);
  } catch (error) {
    await cluster.stop();
    throw error;
  }
  return () => cluster.stop();
}
