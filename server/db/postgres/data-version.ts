import pg from "pg";
import type { Logger } from "pino";

/** The channel migration 0008's triggers notify on every committed write. */
export const DATA_CHANNEL = "threat_radar_data";

const RECONNECT_MS = 1_000;

/**
 * PostgreSQL's counterpart of SQLite's `data_version`: a connection of its
 * own LISTENs on the channel that every write to a data table notifies
 * (at commit, once per transaction), and the version is a counter of the
 * notifications seen. Reading it is free, as the caches need. While the
 * connection is down, notifications may be missed: the version moves on
 * every reconnect, so nothing cached before the outage is served after it.
 */
export class PostgresDataVersion {
  #counter = 0;
  #client: pg.Client | null = null;
  #closed = false;
  #timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly url: string,
    private readonly logger?: Logger,
  ) {}

  /** Resolves once listening; the web process starts serving after that. */
  async start(): Promise<void> {
    const client = new pg.Client({ connectionString: this.url, application_name: "threat-radar data version" });
    client.on("notification", () => {
      this.#counter += 1;
    });
    client.on("error", (error) => {
      this.logger?.warn({ err: error }, "the data-version connection failed; reconnecting");
      this.#reconnect(client);
    });
    client.on("end", () => this.#reconnect(client));
    await client.connect();
    await client.query(`listen ${DATA_CHANNEL}`);
    this.#client = client;
    this.#counter += 1;
  }

  #reconnect(client: pg.Client): void {
    if (this.#closed || this.#client !== client) return;
    this.#client = null;
    this.#counter += 1;
    client.end().catch(() => {});
    this.#scheduleStart();
  }

  #scheduleStart(): void {
    if (this.#closed) return;
    this.#timer = setTimeout(() => {
      this.#timer = null;
      this.start().catch((error: unknown) => {
        this.logger?.warn({ err: error }, "the data-version connection could not reopen; retrying");
        this.#counter += 1;
        this.#scheduleStart();
      });
    }, RECONNECT_MS);
  }

  current(): string {
    return String(this.#counter);
  }

  async close(): Promise<void> {
    this.#closed = true;
    if (this.#timer) clearTimeout(this.#timer);
    const client = this.#client;
    this.#client = null;
    await client?.end();
  }
}
