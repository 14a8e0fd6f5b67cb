import { resolve } from "node:path";
import { openSqliteDatabase, type DatabaseHandle } from "./connection";
import { createPostgresPool, postgresKysely } from "./postgres/pool";

/** Where the data lives: DATABASE_URL names a PostgreSQL database; otherwise the SQLite file at DATABASE_PATH. */
export type DatabaseTarget = { kind: "sqlite"; path: string } | { kind: "postgres"; url: string; poolSize: number };

/** The database variables as the env schema (server/config/env.ts) validated them. */
export interface DatabaseVariables {
  DATABASE_PATH: string;
  DATABASE_URL?: string;
  DATABASE_POOL_SIZE: number;
}

export function databaseTarget(env: DatabaseVariables): DatabaseTarget {
  if (env.DATABASE_URL) return { kind: "postgres", url: env.DATABASE_URL, poolSize: env.DATABASE_POOL_SIZE };
  return { kind: "sqlite", path: resolve(env.DATABASE_PATH) };
}

/** A target as logs and messages may show it: never a PostgreSQL password. */
export function describeTarget(target: DatabaseTarget): string {
  if (target.kind === "sqlite") return target.path;
  const url = new URL(target.url);
  if (url.password) url.password = "***";
  return url.toString();
}

/** A connection that writes: migrations, a crashed import's record, tests seeding rows. */
export function openDatabase(target: DatabaseTarget): DatabaseHandle {
  if (target.kind === "sqlite") return openSqliteDatabase(target.path);
  const db = postgresKysely(createPostgresPool({ url: target.url, size: 2, applicationName: "threat-radar" }));
  return { db, close: () => db.destroy() };
}
