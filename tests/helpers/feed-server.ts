import { createReadStream, createWriteStream } from "node:fs";
import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { pipeline } from "node:stream/promises";
import { crc32, createGunzip, createGzip, deflateRawSync } from "node:zlib";
import pino, { type Logger } from "pino";
import tar from "tar-stream";
import { openSqliteDatabase, type DatabaseHandle } from "../../server/db/connection";
import { migrateToLatest } from "../../server/db/migrate";
import { openDatabase } from "../../server/db/target";
import { openPostgresImportStore, openSqliteImportStore, type ImportStore } from "../../server/pipeline/engine/store";
import { freshPostgresDatabase, testDatabaseKind } from "./test-database";

const projectRoot = resolve(import.meta.dirname, "../..");

/** The real feed snapshots (read-only, never copied into the repository). */
export const snapshotDir = process.env.THREAT_RADAR_DATA_DIR ?? resolve(projectRoot, "../shared/data");

export function snapshot(...parts: string[]): string {
  return join(snapshotDir, ...parts);
}

/**
 * How the server answers a path: normally (with ETag / Last-Modified and 304
 * for a matching conditional request), like a server that sends no ETag (so
 * only If-Modified-Since can get a 304), with a body cut in half after
 * announcing the full Content-Length, with a well-framed response whose
 * content is the first half of the file (a truncated gzip), or with one 503
 * before answering normally. The truncated answers stand for a file the
 * publisher has just replaced, so they ignore conditional headers.
 */
export type Behaviour = "normal" | "no-etag" | "truncated-body" | "truncated-content" | "unavailable-once";

export interface FeedServer {
  origin: string;
  url(path: string): string;
  setBehaviour(path: string, behaviour: Behaviour): void;
  /** Requests received, in order. */
  requests: Array<{ path: string; status: number; ifNoneMatch: string | undefined; ifModifiedSince: string | undefined }>;
  close(): Promise<void>;
}

/**
 * A local HTTP server on 127.0.0.1 serving files at the publishers' URL
 * paths (`routes` maps path → file), so downloads go through the real HTTP
 * code path without reaching the internet.
 */
export async function startFeedServer(routes: Record<string, string>): Promise<FeedServer> {
  const behaviours = new Map<string, Behaviour>();
  const requests: FeedServer["requests"] = [];

  async function answer(req: IncomingMessage, res: ServerResponse): Promise<number> {
    const path = new URL(req.url ?? "/", "http://localhost").pathname;
    const file = routes[path];
    if (!file) {
      res.writeHead(404).end("not found");
      return 404;
    }
    const behaviour = behaviours.get(path) ?? "normal";
    if (behaviour === "unavailable-once") {
      behaviours.set(path, "normal");
      res.writeHead(503, { "retry-after": "0" }).end("try again");
      return 503;
    }
    const info = await stat(file);
    const etag = `"${info.size.toString(16)}-${Math.trunc(info.mtimeMs).toString(16)}"`;
    const headers: Record<string, string> = { etag, "last-modified": info.mtime.toUTCString(), "content-type": "application/octet-stream" };
    if (behaviour === "no-etag") delete headers.etag;
    const truncated = behaviour === "truncated-body" || behaviour === "truncated-content";
    // RFC 9110 13.1.3: If-None-Match wins; If-Modified-Since counts only without it.
    const ifNoneMatch = req.headers["if-none-match"];
    const ifModifiedSince = req.headers["if-modified-since"];
    const unchanged =
      ifNoneMatch !== undefined
        ? headers.etag !== undefined && ifNoneMatch === headers.etag
        : ifModifiedSince !== undefined && Math.floor(info.mtimeMs / 1000) * 1000 <= Date.parse(ifModifiedSince);
    if (unchanged && !truncated) {
      res.writeHead(304, headers).end();
      return 304;
    }
    if (behaviour === "truncated-body") {
      const body = await readFile(file);
      res.writeHead(200, { ...headers, "content-length": String(body.length) });
      res.write(body.subarray(0, Math.floor(body.length / 2)), () => res.socket?.destroy());
      return 200;
    }
    if (behaviour === "truncated-content") {
      const half = (await readFile(file)).subarray(0, Math.floor(info.size / 2));
      res.writeHead(200, { ...headers, etag: `"half-${etag.slice(1)}`, "content-length": String(half.length) }).end(half);
      return 200;
    }
    res.writeHead(200, { ...headers, "content-length": String(info.size) });
    createReadStream(file).pipe(res);
    return 200;
  }

  const server = createServer((req, res) => {
    answer(req, res).then(
      (status) =>
        requests.push({
          path: req.url ?? "",
          status,
          ifNoneMatch: req.headers["if-none-match"],
          ifModifiedSince: req.headers["if-modified-since"],
        }),
      (error: unknown) => res.writeHead(500).end(String(error)),
    );
  });
  await new Promise<void>((ready) => server.listen(0, "127.0.0.1", ready));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    url: (path) => `${origin}${path}`,
    setBehaviour: (path, behaviour) => behaviours.set(path, behaviour),
    requests,
    close: () =>
      new Promise((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}

export interface TestDatabase extends DatabaseHandle {
  /** A temporary folder of the test's own, for the files it writes. */
  dir: string;
  /** The variable that names this database to a child process (DATABASE_PATH or DATABASE_URL). */
  env: Record<string, string>;
  /** What imports run on (a connection of its own, as in production). */
  store: ImportStore;
  /** Closes the database and deletes it and its folder. */
  dispose(): Promise<void>;
}

export interface SqliteTestDatabase extends TestDatabase {
  path: string;
}

/** A fresh, migrated SQLite file in its own temporary folder. */
export async function createSqliteTestDatabase(): Promise<SqliteTestDatabase> {
  const dir = await mkdtemp(join(tmpdir(), "threat-radar-test-"));
  const path = join(dir, "test.sqlite");
  const handle = openSqliteDatabase(path);
  await migrateToLatest(handle.db);
  const store = openSqliteImportStore(path);
  return {
    ...handle,
    path,
    dir,
    env: { DATABASE_PATH: path },
    store,
    async dispose() {
      await store.close();
      await handle.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** A fresh, migrated database of the kind the project runs on (integration-pg: a database of its cluster), and a temporary folder. */
export async function createTestDatabase(): Promise<TestDatabase> {
  if (testDatabaseKind() === "sqlite") return createSqliteTestDatabase();
  const dir = await mkdtemp(join(tmpdir(), "threat-radar-test-"));
  const database = await freshPostgresDatabase();
  const handle = openDatabase({ kind: "postgres", url: database.url, poolSize: 2 });
  const store = openPostgresImportStore(database.url);
  return {
    ...handle,
    dir,
    env: { DATABASE_URL: database.url },
    store,
    async dispose() {
      await store.close();
      await handle.close();
      await database.drop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** A logger that keeps its entries for assertions instead of printing them. */
export function recordingLogger(): { logger: Logger; entries: Array<Record<string, unknown>> } {
  const entries: Array<Record<string, unknown>> = [];
  const logger = pino({ level: "debug" }, { write: (line: string) => entries.push(JSON.parse(line)) });
  return { logger, entries };
}

/**
 * Writes a gzipped tar of `entries`, the way GitHub serves a repository
 * tarball (`<repo>-<branch>/<path>`): used to put real snapshot files behind
 * a publisher's tarball URL at test time. Every file gets the time `modified`
 * (GitHub's: the commit's); the default, 0, is an archive without times.
 */
export async function writeTarGz(
  path: string,
  entries: AsyncIterable<{ name: string; content: Buffer | string }> | Iterable<{ name: string; content: Buffer | string }>,
  modified = new Date(0),
): Promise<number> {
  const pack = tar.pack();
  const written = pipeline(pack, createGzip(), createWriteStream(path));
  let count = 0;
  for await (const { name, content } of entries) {
    const body = typeof content === "string" ? Buffer.from(content) : content;
    // Respect back-pressure: a large archive is written as it is packed.
    await new Promise<void>((done, fail) => pack.entry({ name, size: body.length, mtime: modified }, body, (error) => (error ? fail(error) : done())));
    count += 1;
  }
  pack.finalize();
  await written;
  return count;
}

/** Writes a ZIP archive holding one deflated file (what MITRE serves as cwec_latest.xml.zip). */
export async function writeZip(path: string, name: string, data: Buffer): Promise<void> {
  const deflated = deflateRawSync(data);
  const fileName = Buffer.from(name);
  const crc = crc32(data);
  const local = Buffer.alloc(30);
  local.writeUInt32LE(0x04034b50, 0);
  local.writeUInt16LE(20, 4);
  local.writeUInt16LE(8, 8);
  local.writeUInt32LE(crc, 14);
  local.writeUInt32LE(deflated.length, 18);
  local.writeUInt32LE(data.length, 22);
  local.writeUInt16LE(fileName.length, 26);
  const central = Buffer.alloc(46);
  central.writeUInt32LE(0x02014b50, 0);
  central.writeUInt16LE(20, 4);
  central.writeUInt16LE(20, 6);
  central.writeUInt16LE(8, 10);
  central.writeUInt32LE(crc, 16);
  central.writeUInt32LE(deflated.length, 20);
  central.writeUInt32LE(data.length, 24);
  central.writeUInt16LE(fileName.length, 28);
  const centralOffset = local.length + fileName.length + deflated.length;
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(1, 8);
  end.writeUInt16LE(1, 10);
  end.writeUInt32LE(central.length + fileName.length, 12);
  end.writeUInt32LE(centralOffset, 16);
  await writeFile(path, Buffer.concat([local, fileName, deflated, central, fileName, end]));
}

/** Lines of a (gzipped) JSON Lines snapshot, parsed. */
export async function* jsonLines<T>(file: string): AsyncGenerator<T> {
  for await (const line of createInterface({ input: createReadStream(file).pipe(createGunzip()), crlfDelay: Infinity })) {
    if (line.trim() !== "") yield JSON.parse(line) as T;
  }
}
