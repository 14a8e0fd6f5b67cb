import { execFile, execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { Kysely, PostgresDialect } from "kysely";
import pg from "pg";
import { freePort } from "./server-process";

const run = promisify(execFile);

export interface PostgresCluster {
  /** A superuser URL for the cluster's `postgres` database, on 127.0.0.1. */
  url: string;
  stop(): Promise<void>;
}

/**
 * Where initdb and pg_ctl are: POSTGRES_BIN_DIR, else the newest of Debian's
 * /usr/lib/postgresql/<version>/bin (not on PATH there), else PATH.
 */
function binDir(): string | null {
  if (process.env.POSTGRES_BIN_DIR) return process.env.POSTGRES_BIN_DIR;
  const root = "/usr/lib/postgresql";
  if (!existsSync(root)) return null;
  const versions = readdirSync(root)
    .filter((name) => existsSync(join(root, name, "bin/initdb")))
    .sort((a, b) => Number(b) - Number(a));
  return versions.length > 0 ? join(root, versions[0]!, "bin") : null;
}

/** initdb and postgres refuse to run as root: as root, they run as the `postgres` OS user (Debian's package creates it). */
function asClusterOwner(command: string, args: string[]): [string, string[]] {
  if (process.getuid?.() !== 0) return [command, args];
  return ["runuser", ["-u", "postgres", "--", command, ...args]];
}

function postgresUser(): { uid: number; gid: number } {
  const uid = Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }).trim());
  const gid = Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" }).trim());
  return { uid, gid };
}

/**
 * A throw-away PostgreSQL cluster for tests: initdb into a fresh temp folder,
 * a free loopback port, the unix socket inside the folder (so it never meets
 * a system cluster), durability off because nothing in it must survive.
 * `stop()` shuts it down and deletes the folder.
 *
 * The cluster's collation is ICU's root locale rather than C: a production
 * database usually has a linguistic default collation, and the tests should
 * catch a query that relies on byte order without saying COLLATE "C".
 */
export async function startPostgresCluster(): Promise<PostgresCluster> {
  const bin = binDir();
  const tool = (name: string) => (bin ? join(bin, name) : name);
  const dir = mkdtempSync(join(tmpdir(), "threat-radar-pg-"));
  if (process.getuid?.() === 0) {
    const { uid, gid } = postgresUser();
    chownSync(dir, uid, gid);
  }
  const data = join(dir, "data");
  const log = join(dir, "server.log");
  try {
    await run(
      ...asClusterOwner(tool("initdb"), [
        "-D",
        data,
        "-U",
        "postgres",
        "--auth=trust",
        "--encoding=UTF8",
        "--locale=C.UTF-8",
        "--locale-provider=icu",
        "--icu-locale=und",
        "--no-sync",
      ]),
    );
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`initdb failed (is PostgreSQL installed? see scripts/ensure-postgres.sh): ${String(error)}`, { cause: error });
  }

  let port = 0;
  let lastError: unknown;
  // Another process may take the free port between finding it and binding it: try a few.
  for (let attempt = 0; attempt < 3 && port === 0; attempt++) {
    const candidate = await freePort();
    const options = [
      "-c",
      "listen_addresses=127.0.0.1",
      "-p",
      String(candidate),
      "-k",
      dir,
      "-c",
      "fsync=off",
      "-c",
      "synchronous_commit=off",
      "-c",
      "full_page_writes=off",
      // Fewer, later checkpoints, and no WAL for tables filled in the transaction that created them.
      "-c",
      "max_wal_size=8GB",
      "-c",
      "checkpoint_timeout=30min",
      "-c",
      "wal_level=minimal",
      "-c",
      "max_wal_senders=0",
      "-c",
      "shared_buffers=256MB",
    ].join(" ");
    try {
      await run(...asClusterOwner(tool("pg_ctl"), ["-D", data, "-l", log, "-o", options, "-w", "-t", "60", "start"]));
      port = candidate;
    } catch (error) {
      lastError = error;
    }
  }
  if (port === 0) {
    const output = existsSync(log) ? readFileSync(log, "utf8") : "";
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`PostgreSQL did not start: ${String(lastError)}\n${output}`);
  }

  let stopped = false;
  const stopArgs = asClusterOwner(tool("pg_ctl"), ["-D", data, "-m", "immediate", "-w", "stop"]);
  // A test run that dies without calling stop() would leave a postgres running: stop it on the way out.
  const onExit = () => {
    if (stopped) return;
    try {
      execFileSync(stopArgs[0], stopArgs[1], { stdio: "ignore" });
    } catch {
      // already gone
    }
    rmSync(dir, { recursive: true, force: true });
  };
  process.once("exit", onExit);

  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    async stop() {
      if (stopped) return;
      stopped = true;
      process.off("exit", onExit);
      try {
        await run(...stopArgs);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

export interface TestPostgresDatabase {
  url: string;
  drop(): Promise<void>;
}

/**
 * A fresh database in the cluster, so each test app starts from nothing:
 * empty, or a copy of `template` (a database nobody is connected to, e.g.
 * one already migrated, which copies faster than migrating anew).
 */
export async function createPostgresDatabase(clusterUrl: string, options: { template?: string } = {}): Promise<TestPostgresDatabase> {
  const name = `test_${randomBytes(6).toString("hex")}`;
  const template = options.template ? ` template ${pg.escapeIdentifier(options.template)}` : "";
  await adminQuery(clusterUrl, `create database ${pg.escapeIdentifier(name)}${template}`);
  const url = new URL(clusterUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      await adminQuery(clusterUrl, `drop database if exists ${pg.escapeIdentifier(name)} with (force)`);
    },
  };
}

async function adminQuery(clusterUrl: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: clusterUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/**
 * A pool for a test's own connections. Dropping a test database (`with
 * (force)`) or stopping the cluster ends its idle connections with an 'error'
 * event, which would otherwise fail the run as an unhandled error.
 */
export function testPool(url: string, max: number): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, max });
  pool.on("error", () => undefined);
  return pool;
}

export interface TestPostgres {
  /** Two connections to the cluster's fresh database. */
  db: Kysely<any>;
  /** Closes the connections, drops the database and stops the cluster. */
  stop(): Promise<void>;
}

/** A throw-away cluster with one fresh database, for a test that needs nothing else of it. */
export async function startPostgresDatabase(): Promise<TestPostgres> {
  const cluster = await startPostgresCluster();
  const database = await createPostgresDatabase(cluster.url);
  const db = new Kysely<any>({ dialect: new PostgresDialect({ pool: testPool(database.url, 2) }) });
  return {
    db,
    async stop() {
      await db.destroy();
      await database.drop();
      await cluster.stop();
    },
  };
}
