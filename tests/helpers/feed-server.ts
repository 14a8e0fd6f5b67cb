import { createReadStream } from "node:fs";
import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import pino, { type Logger } from "pino";
import { openSqliteDatabase, type DatabaseHandle } from "../../server/db/connection";
import { migrateToLatest } from "../../server/db/migrate";

const projectRoot = resolve(import.meta.dirname, "../..");

/** The real feed snapshots (read-only, never copied into the repository). */
export const snapshotDir = process.env.THREAT_RADAR_DATA_DIR ?? resolve(projectRoot, "../shared/data");

export function snapshot(...parts: string[]): string {
  return join(snapshotDir, ...parts);
}

/**
 * How the server answers a path: normally (with ETag / Last-Modified and 304
 * for a matching conditional request), with a body cut in half after
 * announcing the full Content-Length, with a well-framed response whose
 * content is the first half of the file (a truncated gzip), or with one 503
 * before answering normally.
 */
export type Behaviour = "normal" | "truncated-body" | "truncated-content" | "unavailable-once";

export interface FeedServer {
  origin: string;
  url(path: string): string;
  setBehaviour(path: string, behaviour: Behaviour): void;
  /** Requests received, in order. */
  requests: Array<{ path: string; status: number; ifNoneMatch: string | undefined }>;
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
    const headers = { etag, "last-modified": info.mtime.toUTCString(), "content-type": "application/octet-stream" };
    if (req.headers["if-none-match"] === etag) {
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
      (status) => requests.push({ path: req.url ?? "", status, ifNoneMatch: req.headers["if-none-match"] }),
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
  path: string;
  dir: string;
  /** Closes the database and deletes its folder. */
  dispose(): Promise<void>;
}

/** A fresh, migrated SQLite file in its own temporary folder. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const dir = await mkdtemp(join(tmpdir(), "threat-radar-test-"));
  const path = join(dir, "test.sqlite");
  const handle = openSqliteDatabase(path);
  await migrateToLatest(handle.db);
  return {
    ...handle,
    path,
    dir,
    async dispose() {
      await handle.close();
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
