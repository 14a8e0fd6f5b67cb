import type { Request, RequestHandler, Response } from "express";

export interface AdmissionOptions {
  /** Requests worked on at once; the others wait in line, costing nothing. */
  concurrency: number;
  /** Longest a request may wait in line; past it, it is turned away (503) instead. */
  queueBudgetMs: number;
  /** Longest line; a request that would make it longer is turned away at once. */
  maxQueue: number;
  /** How the server turns a request away: 503 with Retry-After, as a page or as JSON. */
  shed(req: Request, res: Response, reason: ShedReason): void;
}

export type ShedReason = "queue-full" | "wait-too-long";

export interface AdmissionStats {
  active: number;
  queued: number;
  shed: number;
  /** Moving average of how long an admitted request took, in ms. */
  serviceMs: number;
}

export interface Admission {
  middleware: RequestHandler;
  stats(): AdmissionStats;
  /** How long a request arriving now would probably wait in line, in ms. */
  expectedWaitMs(): number;
}

interface Waiting {
  res: Response;
  admit(): void;
  timer: NodeJS.Timeout;
}

/** Weight of the newest service time in the moving average. */
const SMOOTHING = 0.1;

/**
 * Bounded work, bounded waiting. A burst of requests is served a few at a
 * time, so the event loop keeps turning (health checks, signals, the
 * requests in progress); the rest wait in a line that costs nothing but
 * memory. A request is turned away with 503 and Retry-After, the moment its
 * expected wait exceeds the budget, instead of joining a backlog that would
 * answer everyone too late. A request whose client leaves the line is
 * dropped before any work is done for it.
 */
export function createAdmission(options: AdmissionOptions): Admission {
  const line: Waiting[] = [];
  let active = 0;
  let shed = 0;
  let serviceMs = 20;

  const expectedWaitMs = () => ((line.length + 1) * serviceMs) / options.concurrency;

  const next = () => {
    while (active < options.concurrency && line.length > 0) {
      const waiting = line.shift()!;
      clearTimeout(waiting.timer);
      if (waiting.res.destroyed) continue;
      waiting.admit();
    }
  };

  const turnAway = (req: Request, res: Response, reason: ShedReason) => {
    shed += 1;
    options.shed(req, res, reason);
  };

  const middleware: RequestHandler = (req, res, nextHandler) => {
    // The client left while an earlier, asynchronous middleware (the rate limiter) ran: its response has already
    // closed, so "finish" and "close" will never fire again. Admitted, it would hold its slot for good, and once
    // every slot leaked that way the line would never move (every request shed after the whole budget).
    if (res.destroyed) return;
    const admit = () => {
      active += 1;
      const started = performance.now();
      let done = false;
      const finish = () => {
        if (done) return;
        done = true;
        active -= 1;
        serviceMs += SMOOTHING * (performance.now() - started - serviceMs);
        next();
      };
      res.once("finish", finish);
      res.once("close", finish);
      nextHandler();
    };

    if (active < options.concurrency && line.length === 0) return admit();
    if (line.length >= options.maxQueue) return turnAway(req, res, "queue-full");
    if (expectedWaitMs() > options.queueBudgetMs) return turnAway(req, res, "wait-too-long");

    const waiting: Waiting = {
      res,
      admit,
      timer: setTimeout(() => {
        const index = line.indexOf(waiting);
        if (index < 0) return;
        line.splice(index, 1);
        turnAway(req, res, "wait-too-long");
      }, options.queueBudgetMs),
    };
    // A client that gives up while waiting leaves the line at once.
    res.once("close", () => {
      const index = line.indexOf(waiting);
      if (index < 0) return;
      line.splice(index, 1);
      clearTimeout(waiting.timer);
    });
    line.push(waiting);
  };

  return {
    middleware,
    stats: () => ({ active, queued: line.length, shed, serviceMs }),
    expectedWaitMs,
  };
}
