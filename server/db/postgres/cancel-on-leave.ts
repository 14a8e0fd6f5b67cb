import type { PostgresPool, PostgresPoolClient } from "kysely";
import type pg from "pg";
import { ClientGoneError, currentRequest } from "../../runtime/request-scope";

/**
 * The web pool, as Kysely sees it, with SQLite's read-pool manners (server/db/sqlite/read-pool.ts):
 * a read asked for by a request whose client already left is never sent, and one running when
 * the client leaves is cancelled on the server (`pg_cancel_backend`) instead of finishing for
 * nobody while it holds a connection and a core. SQLite lets a running read finish only
 * because stopping it costs a worker thread; here a cancel costs one short statement.
 *
 * The cancel goes through `canceller`, a pool of its own (one connection is plenty): the web
 * pool may be exhausted by the very queries that are to be stopped. The connection whose query
 * was cancelled goes back to the pool only once the cancel has been answered, so the cancel can
 * never land on the next request's query on that connection.
 */
export function cancelOnClientLeave(pool: pg.Pool, canceller: pg.Pool): PostgresPool {
  return {
    async connect() {
      const signal = currentRequest()?.signal;
      if (signal?.aborted) throw new ClientGoneError();
      const client = await pool.connect();
      if (signal?.aborted) {
        client.release();
        throw new ClientGoneError();
      }
      return cancellable(client, canceller);
    },
    end: () => Promise.all([pool.end(), canceller.end()]).then(() => undefined),
  };
}

function cancellable(client: pg.PoolClient, canceller: pg.Pool): PostgresPoolClient {
  const query = async (text: string, parameters: readonly unknown[]) => {
    const signal = currentRequest()?.signal;
    if (!signal) return client.query(text, parameters as unknown[]);
    if (signal.aborted) throw new ClientGoneError();
    const cancelling: Array<Promise<unknown>> = [];
    const cancel = () => {
      // A failed cancel (the server went away) leaves the statement to its statement_timeout.
      cancelling.push(canceller.query("select pg_cancel_backend($1)", [backendPid(client)]).catch(() => undefined));
    };
    signal.addEventListener("abort", cancel, { once: true });
    try {
      return await client.query(text, parameters as unknown[]);
    } catch (error) {
      throw signal.aborted ? new ClientGoneError() : error;
    } finally {
      signal.removeEventListener("abort", cancel);
      await Promise.all(cancelling);
    }
  };
  return {
    // Kysely passes either SQL with parameters, or a cursor (the exports' streams) that the
    // client drives itself; a cursor's reads stop with the stream when the client leaves.
    query: ((textOrCursor: unknown, parameters?: readonly unknown[]) =>
      typeof textOrCursor === "string" ? query(textOrCursor, parameters ?? []) : client.query(textOrCursor as never)) as unknown as PostgresPoolClient["query"],
    release: () => client.release(),
  };
}

/** The server process of a connection: pg sets it from the server's BackendKeyData (its types omit it). */
function backendPid(client: pg.PoolClient): number {
  return (client as unknown as { processID: number }).processID;
}
