import { Router } from "express";
import { sql, type Kysely } from "kysely";
import type { Logger } from "pino";
import type { Database } from "../db/schema";

/** Answered before any other request in line (server/http/event-loop-slices.ts). */
export const HEALTH_PATHS: ReadonlySet<string> = new Set(["/healthz", "/readyz"]);

export interface HealthOptions {
  /**
   * How long /readyz waits for the database before answering 503. A
   * PostgreSQL server that is unreachable (not refusing, just silent) would
   * otherwise keep the probe waiting for the operating system's connect
   * timeout, minutes, and the load balancer would never see it fail.
   */
  readinessTimeoutMs?: number;
  /** Where the cause of a failed check goes: the probe's answer does not carry it. */
  logger?: Logger;
}

const READINESS_TIMEOUT_MS = 2_000;

class ReadinessTimeout extends Error {
  override name = "ReadinessTimeout";
}

/** Rejects when `work` takes longer than `ms`; the work itself goes on, and its outcome is ignored. */
async function within<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new ReadinessTimeout(`the database did not answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
    work.catch(() => undefined);
  }
}

/** Liveness (`/healthz`) and readiness (`/readyz`: the database answers). */
export function healthRoutes(db: Kysely<Database>, options: HealthOptions = {}): Router {
  const timeoutMs = options.readinessTimeoutMs ?? READINESS_TIMEOUT_MS;
  const router = Router();
  router.get("/healthz", (_req, res) => {
    res.set("Cache-Control", "no-store").json({ status: "ok", uptimeSeconds: Math.round(process.uptime()) });
  });
  router.get("/readyz", async (_req, res) => {
    res.set("Cache-Control", "no-store");
    try {
      const sources = await within(
        (async () => {
          await sql`select 1`.execute(db);
          return db.selectFrom("sources").select(["name", "status", "last_success_at", "last_error"]).execute();
        })(),
        timeoutMs,
      );
      const failing = sources.filter((source) => source.last_error !== null).map((source) => source.name);
      res.json({ status: "ready", database: "ok", sources: sources.length, failingSources: failing });
    } catch (error) {
      options.logger?.warn({ err: error }, "readiness check: the database failed");
      // The driver's message can name internal hosts, users and addresses; /readyz answers anyone.
      const database = error instanceof ReadinessTimeout ? error.message : "the database failed the check (the server's log has the cause)";
      res.status(503).json({ status: "unavailable", database });
    }
  });
  return router;
}
