import { createServer, type Server, type Socket } from "node:net";
import express from "express";
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPostgresPool, postgresKysely } from "../../../server/db/postgres/pool";
import { healthRoutes } from "../../../server/http/health";
import { recordingLogger } from "../../helpers/feed-server";
import { freePort } from "../../helpers/server-process";

/**
 * /readyz when PostgreSQL cannot be reached: the probe must fail (503), and
 * fail soon, whether the server refuses connections (stopped) or accepts
 * them and never answers (hung, or a network that drops packets).
 */

function readinessApp(url: string) {
  const db = postgresKysely(createPostgresPool({ url, size: 2, applicationName: "readiness test" }));
  const { logger, entries } = recordingLogger();
  const app = express();
  app.use(healthRoutes(db, { readinessTimeoutMs: 300, logger }));
  return { app, db, entries };
}

let silent: Server;
let silentPort: number;
const sockets = new Set<Socket>();

beforeAll(async () => {
  // Takes the connection and never says a word: a PostgreSQL that hangs.
  silent = createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
  silentPort = (silent.address() as { port: number }).port;
});

afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => silent.close(resolve));
});

describe("/readyz with PostgreSQL out of reach", () => {
  it("answers 503 when nothing listens on the database's port (a stopped server)", async () => {
    const port = await freePort();
    const { app, db, entries } = readinessApp(`postgres://postgres@127.0.0.1:${port}/none`);
    try {
      const res = await request(app).get("/readyz").expect(503);
      expect(res.body.status).toBe("unavailable");
      expect(res.headers["cache-control"]).toBe("no-store");
      // The driver's message names the address; /readyz answers anyone, so only the log has it.
      expect(JSON.stringify(res.body)).not.toContain(String(port));
      expect(res.body.database).toBe("the database failed the check (the server's log has the cause)");
      expect(JSON.stringify(entries)).toContain(`127.0.0.1:${port}`);
    } finally {
      await db.destroy();
    }
  });

  it("answers 503 when the server accepts the connection but never answers, instead of waiting for it", async () => {
    const { app, db } = readinessApp(`postgres://postgres@127.0.0.1:${silentPort}/none`);
    try {
      const res = await request(app).get("/readyz").expect(503);
      expect(res.body).toEqual({ status: "unavailable", database: "the database did not answer within 300 ms" });
      // /healthz is liveness: the process is fine, only its database is not.
      await request(app).get("/healthz").expect(200);
    } finally {
      for (const socket of sockets) socket.destroy();
      await db.destroy().catch(() => undefined);
    }
  });
});
