import { availableParallelism } from "node:os";
import {
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  type CompiledQuery,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type QueryResult,
} from "kysely";
import { Piscina } from "piscina";
import { ClientGoneError, currentRequest } from "../../runtime/request-scope";
import { entryFile } from "../../runtime/entry-file";
import type { ReadResult, ReadTask, ReadWorkerData } from "./read-worker";

export interface ReadPoolOptions {
  path: string;
  /** Worker threads, each with its own read-only connection. */
  threads?: number;
  /** A query still running after this long is stopped (its worker is replaced) and fails. */
  queryTimeoutMs?: number;
  /** Page cache of each connection. */
  cacheKib?: number;
  /** How long a worker beyond the first may wait for work before it stops. */
  idleWorkerMs?: number;
}

/** A read that took longer than the pool allows: the server answers 503 rather than wait. */
export class QueryTimeoutError extends Error {
  override name = "QueryTimeoutError";
}

export interface ReadPoolStats {
  /** The most worker threads the pool runs. */
  threads: number;
  /** Worker threads running now (one when idle). */
  started: number;
  /** Reads waiting for a free worker. */
  queued: number;
  /** Fraction of the pool's time spent running reads since it started. */
  utilization: number;
}

/**
 * SQLite reads on worker threads. better-sqlite3 is synchronous: run on the
 * web process's main thread, one slow query stops every other request, the
 * health checks and signal handling with it. Here each worker has its own
 * read-only connection (WAL lets readers run beside the import's writer),
 * queries run in parallel, and a read whose client went away is dropped from
 * the queue, or stopped if it already runs.
 */
export class SqliteReadPool {
  readonly #pool: Piscina<ReadTask, ReadResult>;
  readonly #queryTimeoutMs: number;
  readonly #size: number;
  /** Reads waiting for a worker, in order; they reach piscina only when a worker is free. */
  readonly #line: Array<{ run: () => void; reject: (error: Error) => void; signal: AbortSignal | undefined }> = [];
  #running = 0;
  #closed = false;

  constructor({ path, threads, queryTimeoutMs = 10_000, cacheKib = 16_384, idleWorkerMs = 60_000 }: ReadPoolOptions) {
    this.#size = threads ?? Math.max(2, availableParallelism());
    const worker = entryFile(import.meta.url, "./read-worker.ts", "read-worker");
    this.#queryTimeoutMs = queryTimeoutMs;
    this.#pool = new Piscina<ReadTask, ReadResult>({
      filename: worker.url.href,
      execArgv: worker.execArgv,
      // One worker waits at all times; the others start when reads overlap and
      // stop after a quiet minute. Each costs 15–20 MB (a V8 isolate and its
      // page cache), the largest part of an idle server's memory after its heap.
      minThreads: 1,
      maxThreads: this.#size,
      idleTimeout: idleWorkerMs,
      workerData: { path, cacheKib } satisfies ReadWorkerData,
    });
  }

  /**
   * Runs a read. A read whose client leaves while it waits is dropped from
   * the line; one that already runs is let finish (stopping it would cost a
   * new worker thread) and its result ignored. A read that runs past the
   * time limit is stopped: its worker is replaced.
   */
  run(sql: string, parameters: readonly unknown[]): Promise<ReadResult> {
    if (this.#closed) return Promise.reject(new Error("the database's read pool is closed"));
    const request = currentRequest()?.signal;
    if (request?.aborted) return Promise.reject(new ClientGoneError());
    return new Promise<ReadResult>((resolve, reject) => {
      const entry = {
        signal: request,
        reject,
        run: () => {
          this.#running += 1;
          const timeout = AbortSignal.timeout(this.#queryTimeoutMs);
          this.#pool
            .run({ sql, parameters }, { signal: timeout })
            .then(resolve, (error: unknown) => {
              if (timeout.aborted) reject(new QueryTimeoutError(`a database read took longer than ${this.#queryTimeoutMs} ms and was stopped`));
              else reject(error);
            })
            .finally(() => {
              this.#running -= 1;
              this.#next();
            });
        },
      };
      this.#line.push(entry);
      this.#next();
    });
  }

  #next(): void {
    while (this.#running < this.#size && this.#line.length > 0) {
      const entry = this.#line.shift()!;
      if (entry.signal?.aborted) entry.reject(new ClientGoneError());
      else entry.run();
    }
  }

  stats(): ReadPoolStats {
    return { threads: this.#size, started: this.#pool.threads.length, queued: this.#line.length, utilization: this.#pool.utilization };
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const entry of this.#line.splice(0)) entry.reject(new Error("the database's read pool is closed"));
    await this.#pool.destroy();
  }
}

class ReadPoolConnection implements DatabaseConnection {
  constructor(private readonly pool: SqliteReadPool) {}

  async executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    const { rows } = await this.pool.run(compiled.sql, compiled.parameters);
    return { rows: rows as R[] };
  }

  // eslint-disable-next-line require-yield
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    // A stream would hold a worker while its client reads slowly; exports read in batches instead.
    throw new Error("the read pool does not stream: read in batches");
  }
}

class ReadPoolDriver implements Driver {
  readonly #connection: ReadPoolConnection;

  constructor(private readonly pool: SqliteReadPool) {
    this.#connection = new ReadPoolConnection(pool);
  }

  async init(): Promise<void> {}

  /** Connections are stateless handles to the pool: many queries run at once. */
  async acquireConnection(): Promise<DatabaseConnection> {
    return this.#connection;
  }

  async beginTransaction(): Promise<void> {
    throw new Error("the read pool runs no transactions");
  }

  async commitTransaction(): Promise<void> {}
  async rollbackTransaction(): Promise<void> {}
  async releaseConnection(): Promise<void> {}

  async destroy(): Promise<void> {
    await this.pool.close();
  }
}

/** A Kysely dialect whose queries run on the read pool. */
export function readPoolDialect(pool: SqliteReadPool): Dialect {
  return {
    createAdapter: () => new SqliteAdapter(),
    createDriver: () => new ReadPoolDriver(pool),
    createIntrospector: (db) => new SqliteIntrospector(db),
    createQueryCompiler: () => new SqliteQueryCompiler(),
  };
}
