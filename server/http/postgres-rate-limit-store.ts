import { sql, type Kysely } from "kysely";
import type { ClientRateLimitInfo, Options, Store } from "express-rate-limit";
import { LRUCache } from "lru-cache";

/** The one table the shared limits count in (created by createTable below). */
export interface RateLimitTables {
  rate_limits: { key: string; hits: number; reset_at: Date };
}

/** Expired counters are deleted this often (and at least once per window). */
const SWEEP_MS = 60_000;

/**
 * express-rate-limit counters in PostgreSQL, shared by every web node: one
 * row per limiter and client (`key`, `hits`, `reset_at`) and one upsert per
 * request, which starts a new window when the old one has ended. Windows
 * are timed by the database's clock, so nodes whose clocks drift still agree.
 *
 * The table is UNLOGGED and created by the store itself, not by a migration:
 * the counters are throw-away (a crash that empties them only restarts every
 * window) and belong to no import or page, so they stay out of the data
 * schema and out of the SQLite database, which never uses them.
 *
 * A client far below its limit is answered without waiting for the upsert:
 * each request's round trip to the database cost every page its latency,
 * and while an import loads the database that round trip's p95 went from
 * 1.2 ms to 3–8 ms (docs/performance.md, "PostgreSQL web nodes beside an
 * import"). The request is still counted, by an upsert sent at once, and
 * the node takes the shared count it returns. Only when this node knows the
 * client's count from an earlier upsert of the same window, has no upsert
 * of that client still under way, and that count is at most half the limit
 * does it answer from it; otherwise it waits, so the limit itself is
 * enforced on the shared count. Another node's hits are seen at this
 * node's next upsert: a node that last saw the client below half-way can
 * let one request through past the limit before its upsert returns the
 * shared count, so at most one per node and window.
 */
export class PostgresRateLimitStore implements Store {
  /** Keys are counted in the database, not in this process. */
  readonly localKeys = false;
  private windowMs = 60_000;
  /** Counts at most this high are answered without waiting; 0 (a limit computed per request) always waits. */
  private answerWithoutWaitingUpTo = 0;
  private sweep: NodeJS.Timeout | null = null;
  /** Each client's shared count as this node's upserts last returned it, by key. */
  private readonly known = new LRUCache<string, ClientRateLimitInfo & { resetTime: Date }>({ max: 100_000 });
  /** Each client's upserts under way from this node, by key. */
  private readonly underWay = new Map<string, number>();

  constructor(
    private readonly db: Kysely<RateLimitTables>,
    /** Names the limiter, so that the page, API and lookup limits of one client count apart. */
    readonly prefix: string,
    /** Creates the table once, on first use. */
    private readonly ensureTable: () => Promise<void>,
  ) {}

  init(options: Options): void {
    this.windowMs = options.windowMs;
    this.answerWithoutWaitingUpTo = typeof options.limit === "number" ? Math.floor(options.limit / 2) : 0;
    this.sweep = setInterval(() => void this.deleteExpired().catch(() => undefined), Math.min(SWEEP_MS, this.windowMs));
    this.sweep.unref();
  }

  async get(key: string): Promise<ClientRateLimitInfo | undefined> {
    await this.ensureTable();
    const { rows } = await sql<{ hits: number; reset_at: Date }>`
      select hits, reset_at from rate_limits where key = ${this.prefix + key} and reset_at > now()`.execute(this.db);
    return rows[0] ? { totalHits: rows[0].hits, resetTime: rows[0].reset_at } : undefined;
  }

  async increment(key: string): Promise<ClientRateLimitInfo> {
    const known = this.known.get(key);
    if (known && !this.underWay.has(key) && known.resetTime.getTime() > Date.now() && known.totalHits + 1 <= this.answerWithoutWaitingUpTo) {
      // Counted all the same; a failure (the database restarting) makes the next request wait, and pass on the store's error.
      this.count(key).catch(() => this.known.delete(key));
      return { totalHits: known.totalHits + 1, resetTime: known.resetTime };
    }
    return this.count(key);
  }

  /** Counts one hit in the shared table, and remembers the count it returns. */
  private async count(key: string): Promise<ClientRateLimitInfo> {
    this.underWay.set(key, (this.underWay.get(key) ?? 0) + 1);
    try {
      await this.ensureTable();
      return this.remember(key, await this.upsert(key));
    } finally {
      const left = this.underWay.get(key)! - 1;
      if (left > 0) this.underWay.set(key, left);
      else this.underWay.delete(key);
    }
  }

  /** Keeps the highest count returned for the window: upserts sent together may return out of order. */
  private remember(key: string, counted: { totalHits: number; resetTime: Date }): ClientRateLimitInfo {
    const known = this.known.get(key);
    const sameWindow = known !== undefined && known.resetTime.getTime() === counted.resetTime.getTime();
    this.known.set(key, sameWindow && known.totalHits > counted.totalHits ? known : counted);
    return counted;
  }

  private async upsert(key: string): Promise<{ totalHits: number; resetTime: Date }> {
    const { rows } = await sql<{ hits: number; reset_at: Date }>`
      insert into rate_limits as r (key, hits, reset_at)
      values (${this.prefix + key}, 1, now() + make_interval(secs => ${this.windowMs / 1000}))
      on conflict (key) do update set
        hits = case when r.reset_at <= now() then 1 else r.hits + 1 end,
        reset_at = case when r.reset_at <= now() then excluded.reset_at else r.reset_at end
      returning hits, reset_at`.execute(this.db);
    const row = rows[0]!;
    return { totalHits: row.hits, resetTime: row.reset_at };
  }

  async decrement(key: string): Promise<void> {
    this.known.delete(key);
    await this.ensureTable();
    await sql`update rate_limits set hits = greatest(hits - 1, 0) where key = ${this.prefix + key} and reset_at > now()`.execute(this.db);
  }

  async resetKey(key: string): Promise<void> {
    this.known.delete(key);
    await this.ensureTable();
    await sql`delete from rate_limits where key = ${this.prefix + key}`.execute(this.db);
  }

  shutdown(): void {
    if (this.sweep) clearInterval(this.sweep);
  }

  private async deleteExpired(): Promise<void> {
    await this.ensureTable();
    await sql`delete from rate_limits where reset_at <= now()`.execute(this.db);
  }
}

/**
 * One store per limiter, all on one table, created on first use if it is
 * missing (several nodes may start at once: `if not exists` makes that safe).
 */
export function postgresRateLimitStores(db: Kysely<RateLimitTables>): (name: string) => Store {
  let table: Promise<void> | null = null;
  const ensureTable = () =>
    (table ??= createTable(db).catch((error: unknown) => {
      table = null;
      throw error;
    }));
  return (name) => new PostgresRateLimitStore(db, `${name}:`, ensureTable);
}

/** Key of the advisory lock that serialises the table's creation. */
const CREATE_LOCK_KEY = 0x524c494d;

/**
 * Several nodes may start at once, and `create table if not exists` is not
 * safe against itself: a transaction lock makes them take turns.
 */
async function createTable(db: Kysely<RateLimitTables>): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await sql`select pg_advisory_xact_lock(${CREATE_LOCK_KEY})`.execute(trx);
    await sql`create unlogged table if not exists rate_limits (key text primary key, hits integer not null, reset_at timestamptz not null)`.execute(trx);
  });
}
