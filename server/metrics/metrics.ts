import { Router, type RequestHandler } from "express";
import type { Kysely, KyselyPlugin } from "kysely";
import { collectDefaultMetrics, Counter, Histogram, Registry } from "prom-client";
import type { Database } from "../db/schema";
import { mayReadMetrics, type MetricsAccess } from "./access";
import { queryTimer } from "./query-timer";
import { routeLabeller } from "./route-label";
import { registerSourceMetrics } from "./source-metrics";

export interface Metrics {
  registry: Registry;
  /** Times every request; mount before anything that may answer. */
  middleware: RequestHandler;
  /** GET /metrics in the Prometheus text format. */
  router: Router;
  /** Times the queries of the database it is plugged into (`db.withPlugin`). */
  queryTimer: KyselyPlugin;
  /** Records how long a server render took, from its start to the end of its stream. */
  observeRender(seconds: number, outcome: "ok" | "error" | "aborted"): void;
}

export interface MetricsOptions {
  db: Kysely<Database>;
  pagePatterns: readonly string[];
  access: MetricsAccess;
}

const statusClass = (status: number) => `${Math.floor(status / 100)}xx`;

/**
 * The server's Prometheus metrics, in a registry of its own (tests build many
 * apps in one process): request durations by route pattern and status class,
 * requests turned away (shed with 503 + Retry-After, or rate-limited with
 * 429), each source's import state, and Node's process metrics (RSS, heap,
 * event-loop lag, GC).
 */
export function createMetrics({ db, pagePatterns, access }: MetricsOptions): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  registerSourceMetrics(registry, db);
  const duration = new Histogram({
    name: "http_request_duration_seconds",
    help: "Time from a request's arrival to its response's end, by route pattern and status class.",
    labelNames: ["method", "route", "status"],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const shed = new Counter({
    name: "http_requests_shed_total",
    help: "Requests turned away with 503 and Retry-After because the server was busy.",
    labelNames: ["route"],
    registers: [registry],
  });
  const limited = new Counter({
    name: "http_requests_rate_limited_total",
    help: "Requests refused with 429 by a rate limit.",
    labelNames: ["route"],
    registers: [registry],
  });
  const queries = new Histogram({
    name: "threat_radar_db_query_duration_seconds",
    help: "Time of each database query the web process ran, by statement kind.",
    labelNames: ["statement"],
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10],
    registers: [registry],
  });
  const renders = new Histogram({
    name: "threat_radar_ssr_render_duration_seconds",
    help: "Time of each server render, from its start to the end of its stream, by outcome (cached pages are not rendered).",
    labelNames: ["outcome"],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const label = routeLabeller(pagePatterns);

  const middleware: RequestHandler = (req, res, next) => {
    const started = process.hrtime.bigint();
    res.once("finish", () => {
      const route = label(req);
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      duration.observe({ method: req.method, route, status: statusClass(res.statusCode) }, seconds);
      if (res.statusCode === 429) limited.inc({ route });
      if (res.statusCode === 503 && res.hasHeader("retry-after")) shed.inc({ route });
    });
    next();
  };

  const router = Router();
  router.get("/metrics", async (req, res, next) => {
    res.set("Cache-Control", "no-store");
    if (!mayReadMetrics(req, access)) {
      res
        .set("WWW-Authenticate", 'Bearer realm="metrics"')
        .status(403)
        .type("text/plain")
        .send("Forbidden: /metrics needs METRICS_TOKEN or an allowed address (METRICS_ALLOW).\n");
      return;
    }
    try {
      const text = await registry.metrics();
      res.type(registry.contentType).send(text);
    } catch (error) {
      next(error);
    }
  });
  return {
    registry,
    middleware,
    router,
    queryTimer: queryTimer((seconds, statement) => queries.observe({ statement }, seconds)),
    observeRender: (seconds, outcome) => renders.observe({ outcome }, seconds),
  };
}
