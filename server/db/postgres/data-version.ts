import pg from "pg";
import type { Logger } from "pino";
import { DATA_DOMAINS, sourceDomain, type DataDomain } from "../data-domains";
import { IMPORT_CHANNEL, IMPORT_LOCK_HELD } from "./import-lock";

/**
 * The channel every committed write notifies (migration 0010): payload
 * `import` for an import's writes, empty for anyone else's, and `source
 * <name>` for a write to a `sources` row (migration 0018).
 */
export const DATA_CHANNEL = "threat_radar_data";

const SOURCE_PAYLOAD = /^source (.+)$/s;
const IMPORT_PAYLOAD = "import";

const RECONNECT_MS = 1_000;

/**
 * How often the lock is checked while an import is believed to run: a holder
 * that dies (kill -9, a lost machine) loses the lock with its session without
 * saying so.
 */
const IMPORT_CHECK_MS = 10_000;

/**
 * PostgreSQL's counterpart of SQLite's `data_version`: a connection of its
 * own LISTENs on the channel that every write to a data table notifies
 * (at commit, once per transaction), and the version is a counter of the
 * notifications seen. Reading it is free, as the caches need. While the
 * connection is down, notifications may be missed: the version moves on
 * every reconnect, so nothing cached before the outage is served after it.
 *
 * The same connection follows the import lock, whose holder notifies when
 * it takes and gives back the lock (server/db/postgres/import-lock.ts), so
 * that `importRunning()` is free to ask too. When in doubt (no connection,
 * a check that failed) it says no: the page cache then renders a changed
 * page before its answer, which is slower but never older than the data.
 *
 * The version is kept per domain (server/db/data-domains.ts), as SQLite's
 * is, from what the notifications say (migration 0018). While an import
 * runs, its own writes move no version but through its source's `sources`
 * row, written in the transaction that publishes its data (or records its
 * failure), which moves that source's domain: EPSS's import leaves the IOC
 * radar's cached pages alone. Anyone else's write during an import moves
 * every domain when the import ends (or is found gone). With no import
 * running, every commit moves every domain.
 */
export class PostgresDataVersion {
  /** Moves with every notification; the domains' versions are values it took. */
  #counter = 0;
  readonly #versions: Record<DataDomain, number> = { cve: 0, ioc: 0 };
  /** Someone other than the import wrote while it ran: every domain moves when it ends. */
  #othersWrote = false;
  #client: pg.Client | null = null;
  #closed = false;
  #timer: NodeJS.Timeout | null = null;
  #importRunning = false;
  /** Moves with every notification of the lock's holder, and whenever importRunning() changes. */
  #importVersion = 0;
  #importCheck: NodeJS.Timeout | null = null;

  constructor(
    private readonly url: string,
    private readonly logger?: Logger,
    private readonly importCheckMs = IMPORT_CHECK_MS,
  ) {}

  /** Resolves once listening; the web process starts serving after that. */
  async start(): Promise<void> {
    const client = new pg.Client({ connectionString: this.url, application_name: "threat-radar data version" });
    client.on("notification", (message) => {
      if (message.channel === IMPORT_CHANNEL) {
        this.#importVersion += 1;
        this.#setImportRunning(message.payload !== "ended");
      } else {
        this.#dataChanged(message.payload ?? "");
      }
    });
    client.on("error", (error) => {
      this.logger?.warn({ err: error }, "the data-version connection failed; reconnecting");
      this.#reconnect(client);
    });
    client.on("end", () => this.#reconnect(client));
    await client.connect();
    await client.query(`listen ${DATA_CHANNEL}`);
    await client.query(`listen ${IMPORT_CHANNEL}`);
    // After listening: a lock taken from here on is notified, one taken before is found held.
    const held = await client.query<{ held: boolean }>(`select ${IMPORT_LOCK_HELD} as held`);
    this.#client = client;
    this.#moveAll();
    this.#setImportRunning(held.rows[0]?.held === true);
  }

  #dataChanged(payload: string): void {
    if (!this.#importRunning) return this.#moveAll();
    this.#counter += 1;
    const source = SOURCE_PAYLOAD.exec(payload)?.[1];
    if (source !== undefined) {
      const domain = sourceDomain(source);
      for (const moved of domain ? [domain] : DATA_DOMAINS) this.#versions[moved] = this.#counter;
    } else if (payload !== IMPORT_PAYLOAD) {
      this.#othersWrote = true;
    }
  }

  #moveAll(): void {
    this.#counter += 1;
    for (const domain of DATA_DOMAINS) this.#versions[domain] = this.#counter;
  }

  #setImportRunning(running: boolean): void {
    if (running !== this.#importRunning) this.#importVersion += 1;
    if (!running && this.#importRunning && this.#othersWrote) this.#moveAll();
    if (!running) this.#othersWrote = false;
    this.#importRunning = running;
    if (running && !this.#importCheck) {
      this.#importCheck = setInterval(() => this.#checkImport(), this.importCheckMs);
      this.#importCheck.unref();
    } else if (!running && this.#importCheck) {
      clearInterval(this.#importCheck);
      this.#importCheck = null;
    }
  }

  #checkImport(): void {
    const client = this.#client;
    if (!client) return;
    client.query<{ held: boolean }>(`select ${IMPORT_LOCK_HELD} as held`).then(
      (result) => {
        if (this.#client === client && result.rows[0]?.held !== true) this.#setImportRunning(false);
      },
      // The connection's own error handler reconnects, and a reconnect says no import.
      () => undefined,
    );
  }

  #reconnect(client: pg.Client): void {
    if (this.#closed || this.#client !== client) return;
    this.#client = null;
    this.#moveAll();
    this.#setImportRunning(false);
    client.end().catch(() => {});
    this.#scheduleStart();
  }

  #scheduleStart(): void {
    if (this.#closed) return;
    this.#timer = setTimeout(() => {
      this.#timer = null;
      this.start().catch((error: unknown) => {
        this.logger?.warn({ err: error }, "the data-version connection could not reopen; retrying");
        this.#moveAll();
        this.#scheduleStart();
      });
    }, RECONNECT_MS);
  }

  /** The version of one domain's data, or of all of it. */
  current(domain?: DataDomain): string {
    return domain ? String(this.#versions[domain]) : `${this.#versions.cve}.${this.#versions.ioc}`;
  }

  /** Whether an import holds the lock, as last notified or checked. */
  importRunning(): boolean {
    return this.#importRunning;
  }

  /**
   * Moves whenever the `sources` rows or the import lock's row may have
   * changed: the data version, and the lock holder's notifications.
   */
  statusVersion(): string {
    return `${this.#counter}.${this.#importVersion}`;
  }

  async close(): Promise<void> {
    this.#closed = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#setImportRunning(false);
    const client = this.#client;
    this.#client = null;
    await client?.end();
  }
}
