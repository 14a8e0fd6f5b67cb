import pg from "pg";
import { createPostgresDatabase, startPostgresCluster } from "../tests/helpers/postgres-cluster";

export interface BenchPostgres {
  /** The database the benchmark writes to and reads from. */
  url: string;
  /** Whether it is a throw-away cluster this process started (deleted by stop()). */
  throwAway: boolean;
  stop(): Promise<void>;
}

/**
 * The PostgreSQL database a benchmark measures: DATABASE_URL when it is set
 * (the caller's own server and data), else a throw-away cluster on loopback
 * (tests/helpers/postgres-cluster.ts: initdb into a temporary folder, fsync
 * off) with one empty database, stopped and deleted by stop().
 */
export async function benchPostgres(): Promise<BenchPostgres> {
  if (process.env.DATABASE_URL) return { url: process.env.DATABASE_URL, throwAway: false, stop: async () => {} };
  const cluster = await startPostgresCluster();
  const database = await createPostgresDatabase(cluster.url);
  return { url: database.url, throwAway: true, stop: () => cluster.stop() };
}

/** Bytes the database takes on disk (tables, indexes and TOAST, as `pg_database_size` counts them). */
export async function postgresDatabaseBytes(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ bytes: string }>("select pg_database_size(current_database()) as bytes");
    return Number(rows[0]?.bytes ?? 0);
  } finally {
    await client.end();
  }
}
