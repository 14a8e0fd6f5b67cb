import { Router } from "express";
import { sql, type Kysely } from "kysely";
import type { Database } from "../db/schema";

/** Answered before any other request in line (server/http/event-loop-slices.ts). */
export const HEALTH_PATHS: ReadonlySet<string> = new Set(["/healthz", "/readyz"]);

/** Liveness (`/healthz`) and readiness (`/readyz`: the database answers). */
export function healthRoutes(db: Kysely<Database>): Router {
  const router = Router();
  router.get("/healthz", (_req, res) => {
    res.set("Cache-Control", "no-store").json({ status: "ok", uptimeSeconds: Math.round(process.uptime()) });
  });
  router.get("/readyz", async (_req, res) => {
    res.set("Cache-Control", "no-store");
    try {
      await sql`select 1`.execute(db);
      const sources = await db.selectFrom("sources").select(["name", "status", "last_success_at", "last_error"]).execute();
      const failing = sources.filter((source) => source.last_error !== null).map((source) => source.name);
      res.json({ status: "ready", database: "ok", sources: sources.length, failingSources: failing });
    } catch (error) {
      res.status(503).json({ status: "unavailable", database: error instanceof Error ? error.message : "unreachable" });
    }
  });
  return router;
}
