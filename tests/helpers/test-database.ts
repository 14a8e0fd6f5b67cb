import { join } from "node:path";
import { inject } from "vitest";
import { openSqliteDatabase, type DatabaseHandle } from "../../server/db/connection";
import { openDatabase } from "../../server/db/target";
import { createPostgresDatabase, type TestPostgresDatabase } from "./postgres-cluster";

/** Which database the integration tests run on: the integration-pg project sets THREAT_RADAR_TEST_DB=postgres. */
export function testDatabaseKind(): "sqlite" | "postgres" {
  return process.env.THREAT_RADAR_TEST_DB === "postgres" ? "postgres" : "sqlite";
}

/**
 * A fresh database of the integration-pg run's cluster, already migrated: a
 * copy of the template its global setup migrated once (tests/integration/setup/postgres.ts).
 */
export function freshPostgresDatabase(): Promise<TestPostgresDatabase> {
  return createPostgresDatabase(inject("postgresCluster"), { template: inject("postgresTemplate") });
}

export interface ServerDatabase {
  /** The variable that points a server process or a CLI at it (DATABASE_PATH or DATABASE_URL). */
  env: Record<string, string>;
  /** A connection of the test's own, to look at what the process wrote (the caller closes it). */
  open(): DatabaseHandle;
  /** Deletes a PostgreSQL database (a SQLite file goes with the caller's folder). */
  drop(): Promise<void>;
}

/**
 * A database that a server process or CLI creates or migrates itself on
 * first start: a SQLite path under `dir` that does not exist yet, or an
 * empty, unmigrated database of the integration-pg run's cluster.
 */
export async function serverDatabase(dir: string, name: string): Promise<ServerDatabase> {
  if (testDatabaseKind() === "sqlite") {
    const path = join(dir, name);
    return { env: { DATABASE_PATH: path }, open: () => openSqliteDatabase(path), drop: async () => {} };
  }
  const database = await createPostgresDatabase(inject("postgresCluster"));
  return {
    env: { DATABASE_URL: database.url },
    open: () => openDatabase({ kind: "postgres", url: database.url, poolSize: 1 }),
    drop: () => database.drop(),
  };
}

/** The server databases of one test file, under its folder, dropped together at its end. */
export function serverDatabases(dir: string) {
  const made: ServerDatabase[] = [];
  const create = async (name: string): Promise<ServerDatabase> => {
    const database = await serverDatabase(dir, name);
    made.push(database);
    return database;
  };
  return {
    create,
    /** Just the variable, for a process whose database the test does not look into. */
    env: async (name: string) => (await create(name)).env,
    dropAll: async () => {
      await Promise.all(made.map((database) => database.drop()));
    },
  };
}

/** A connection of the test's own to the shared snapshot database of the project's kind (SQLite file, or its PostgreSQL twin). */
export function openSnapshotDatabase(): DatabaseHandle {
  if (testDatabaseKind() === "sqlite") return openSqliteDatabase(inject("snapshotDatabase"));
  return openDatabase({ kind: "postgres", url: inject("snapshotPostgres"), poolSize: 1 });
}
