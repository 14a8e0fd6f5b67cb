import express from "express";
import { setTimeout as delay } from "node:timers/promises";
import { Kysely, PostgresDialect, sql } from "kysely";
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postgresRateLimitStores } from "../../../server/http/postgres-rate-limit-store";
import { apiRateLimit } from "../../../server/http/rate-limit";
import { createPostgresDatabase, startPostgresCluster, type PostgresCluster, type TestPostgresDatabase, testPool } from "../../helpers/postgres-cluster";

const LIMIT = 5;
let cluster: PostgresCluster;
let database: TestPostgresDatabase;
const pools: Array<Kysely<unknown>> = [];

/** A web node: its own pool on the shared database, and the API limiter over it. */
function webNode(name = "api") {
  const db = new Kysely<unknown>({ dialect: new PostgresDialect({ pool: testPool(database.url, 2) }) });
  pools.push(db);
  const app = express();
  app.use(apiRateLimit({ windowMs: 60_000, limit: LIMIT, store: postgresRateLimitStores(db)(name) }));
  app.get("/", (_req, res) => void res.send("ok"));
  return { app, db };
}

beforeAll(async () => {
  cluster = await startPostgresCluster();
  database = await createPostgresDatabase(cluster.url);
});

afterAll(async () => {
  await Promise.all(pools.map((db) => db.destroy()));
  await database?.drop();
  await cluster?.stop();
});

describe("the PostgreSQL rate-limit store", () => {
  it("counts one client's requests across nodes: the limit is reached together", async () => {
    const nodes = [webNode(), webNode()];
    const statuses: number[] = [];
    for (let i = 0; i < LIMIT + 2; i++) {
      const response = await request(nodes[i % 2]!.app).get("/");
      statuses.push(response.status);
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429]);
    // Both nodes now refuse the client, with the shared count in the headers.
    const fromFirst = await request(nodes[0]!.app).get("/");
    expect(fromFirst.status).toBe(429);
    expect(fromFirst.headers["ratelimit"]).toMatch(/\br=0\b/);
  });

  it("counts limiters apart, and starts a new window once the old one has ended", async () => {
    const pages = webNode("pages");
    expect((await request(pages.app).get("/")).status).toBe(200);
    const lookups = webNode("lookup");
    for (let i = 0; i < LIMIT; i++) expect((await request(lookups.app).get("/")).status).toBe(200);
    expect((await request(lookups.app).get("/")).status).toBe(429);

    // End the window as the clock would.
    await sql`update rate_limits set reset_at = now() - interval '1 second' where key like 'lookup:%'`.execute(lookups.db);
    expect((await request(lookups.app).get("/")).status).toBe(200);
    const { rows } = await sql<{ key: string; hits: number }>`select key, hits from rate_limits order by key`.execute(lookups.db);
    expect(rows.map((row) => row.key.split(":")[0])).toEqual(["api", "lookup", "pages"]);
    expect(rows.find((row) => row.key.startsWith("lookup:"))?.hits).toBe(1);
    expect(rows.find((row) => row.key.startsWith("pages:"))?.hits).toBe(1);
  });

  it("answers a client far below its limit without waiting for the count, which is still taken, and waits near the limit", async () => {
    const node = webNode("slow");
    expect((await request(node.app).get("/")).status).toBe(200);
    // Another session holds the client's row: an upsert now waits for it.
    const holderPool = testPool(database.url, 1);
    const holder = await holderPool.connect();
    let answered = false;
    try {
      await holder.query("begin");
      await holder.query("select * from rate_limits where key like 'slow:%' for update");
      // 2 of 5: answered at once, its upsert waiting behind the lock.
      expect((await request(node.app).get("/")).status).toBe(200);
      // With that upsert still under way, the next request waits for its own.
      const third = request(node.app)
        .get("/")
        .then((response) => {
          answered = true;
          return response.status;
        });
      await delay(300);
      expect(answered).toBe(false);
      await holder.query("commit");
      expect(await third).toBe(200);
    } finally {
      // Nothing to roll back once committed; after a failure, the row is let go.
      await holder.query("rollback").catch(() => undefined);
      holder.release();
      await holderPool.end();
    }
    // From 3 of 5 on, every request waits for the shared count, and the limit holds exactly.
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await request(node.app).get("/")).status);
    expect(statuses).toEqual([200, 200, 429]);
    const { rows } = await sql<{ hits: number }>`select hits from rate_limits where key like 'slow:%'`.execute(node.db);
    expect(rows).toEqual([{ hits: 6 }]);
  });

  it("creates its table once even when several nodes start at the same moment", async () => {
    const fresh = await createPostgresDatabase(cluster.url);
    try {
      const apps = Array.from({ length: 4 }, () => {
        const db = new Kysely<unknown>({ dialect: new PostgresDialect({ pool: testPool(fresh.url, 1) }) });
        pools.push(db);
        const app = express();
        app.use(apiRateLimit({ windowMs: 60_000, limit: LIMIT, store: postgresRateLimitStores(db)("api") }));
        app.get("/", (_req, res) => void res.send("ok"));
        return app;
      });
      const statuses = await Promise.all(
        apps.map((app) =>
          request(app)
            .get("/")
            .then((response) => response.status),
        ),
      );
      expect(statuses).toEqual([200, 200, 200, 200]);
    } finally {
      await Promise.all(pools.splice(-4).map((db) => db.destroy()));
      await fresh.drop();
    }
  });
});
