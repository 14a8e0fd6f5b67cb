import express from "express";
import { request as httpRequest, type ClientRequest } from "node:http";
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import { sql } from "kysely";
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { requestScope } from "../../../server/http/request-scope-middleware";
import { migrateToLatest } from "../../../server/db/migrate";
import { openPostgresWebDatabase } from "../../../server/db/postgres/web-database";
import { openDatabase } from "../../../server/db/target";
import type { WebDatabase } from "../../../server/db/web-database";
import { ClientGoneError, isClientGone, runInScope } from "../../../server/runtime/request-scope";
import { createPostgresDatabase, startPostgresCluster, testPool, type PostgresCluster, type TestPostgresDatabase } from "../../helpers/postgres-cluster";

let cluster: PostgresCluster;
let database: TestPostgresDatabase;
let web: WebDatabase;
let observer: pg.Pool;
let server: Server;
let origin: string;
/** What each request's database read ended with, by the id in its path. */
const outcomes = new Map<string, unknown>();

/** The web process's statements now running a `pg_sleep` (the slow read below), as the server sees them. */
async function runningSleeps(): Promise<number> {
  const { rows } = await observer.query<{ n: string }>(
    "select count(*) as n from pg_stat_activity where application_name = 'threat-radar web' and state = 'active' and query like 'select pg_sleep%'",
  );
  return Number(rows[0]!.n);
}

beforeAll(async () => {
  cluster = await startPostgresCluster();
  database = await createPostgresDatabase(cluster.url);
  const setup = openDatabase({ kind: "postgres", url: database.url, poolSize: 2 });
  await migrateToLatest(setup.db);
  await setup.close();
  // One connection: a connection that took a cancel must come back able to serve the next read.
  web = await openPostgresWebDatabase({ url: database.url, poolSize: 1, queryTimeoutMs: 120_000 });
  observer = testPool(database.url, 1);

  const app = express();
  app.use(requestScope);
  // A read far slower than any client waits for.
  app.get("/slow/:id", async (req, res) => {
    try {
      await sql`select pg_sleep(300)`.execute(web.db);
      outcomes.set(req.params.id, "finished");
      res.send("done");
    } catch (error) {
      outcomes.set(req.params.id, error);
      if (!res.destroyed) res.status(503).end();
    }
  });
  server = app.listen(0, "127.0.0.1");
  await new Promise((done) => server.once("listening", done));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server?.close();
  await web?.close();
  await observer?.end();
  await database?.drop();
  await cluster?.stop();
});

describe("PostgreSQL reads of a client that left", () => {
  it("are cancelled on the server: the statement leaves pg_stat_activity and the request's read fails as client-gone", async () => {
    let client: ClientRequest | undefined;
    try {
      client = httpRequest(`${origin}/slow/a`, { agent: false });
      client.on("error", () => undefined);
      client.end();
      await expect.poll(runningSleeps, { timeout: 60_000, interval: 100 }).toBe(1);

      client.destroy();

      await expect.poll(runningSleeps, { timeout: 60_000, interval: 100 }).toBe(0);
      await expect.poll(() => outcomes.get("a"), { timeout: 60_000, interval: 100 }).toBeInstanceOf(ClientGoneError);
    } finally {
      client?.destroy();
    }
    // The cancelled read's connection (the pool's only one) serves the next read.
    const { rows } = await sql<{ one: number }>`select 1 as one`.execute(web.db);
    expect(rows).toEqual([{ one: 1 }]);
  });

  it("are never sent once the client has left", async () => {
    const controller = new AbortController();
    controller.abort(new ClientGoneError());
    const read = runInScope({ signal: controller.signal }, () => sql`select pg_sleep(300)`.execute(web.db));
    await expect(read).rejects.toSatisfy(isClientGone);
    expect(await runningSleeps()).toBe(0);
  });

  it("run to their end for a client that stays", async () => {
    const controller = new AbortController();
    const { rows } = await runInScope({ signal: controller.signal }, () => sql<{ slept: string }>`select pg_sleep(0.01)::text as slept`.execute(web.db));
    expect(rows).toEqual([{ slept: "" }]);
  });
});
