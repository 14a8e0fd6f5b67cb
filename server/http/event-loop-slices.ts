import { AsyncResource } from "node:async_hooks";
import type { Request, RequestHandler, Response } from "express";

export interface SliceOptions {
  /** Longest stretch of request work run in one turn of the event loop, in ms. */
  sliceMs: number;
  /** Longest a request may wait for its turn; past it, it is turned away (503) instead. */
  maxWaitMs: number;
  /** Requests that never wait for a turn (health checks). */
  bypass(req: Request): boolean;
  shed(req: Request, res: Response): void;
}

interface Turn {
  res: Response;
  req: Request;
  queuedAt: number;
  run(): void;
}

/**
 * Request work in slices of the event loop. Under saturation every connection
 * sends its next request the moment it gets an answer, so one turn of the loop
 * would otherwise start the work of every ready socket in a row: with 200
 * connections, a health check waited behind 200 pages (hundreds of ms) even
 * though each was cheap. Here a request only joins a line when it arrives; the
 * line is worked through for at most `sliceMs` per turn, after which the loop
 * reads its sockets again, so `/healthz` is answered within about one slice
 * whatever the load, and the order of everything else is kept.
 */
export function eventLoopSlices(options: SliceOptions): RequestHandler {
  let line: Turn[] = [];
  let head = 0;
  let scheduled = false;

  const work = () => {
    scheduled = false;
    const deadline = performance.now() + options.sliceMs;
    while (head < line.length) {
      const now = performance.now();
      if (now >= deadline) break;
      const turn = line[head]!;
      line[head] = undefined as unknown as Turn;
      head += 1;
      // A client that left is dropped before any work is done for it.
      if (turn.res.destroyed) continue;
      if (now - turn.queuedAt > options.maxWaitMs) options.shed(turn.req, turn.res);
      else turn.run();
    }
    if (head === line.length) {
      line = [];
      head = 0;
    } else if (head > 1024 && head * 2 > line.length) {
      line = line.slice(head);
      head = 0;
    }
    if (head < line.length) schedule();
  };

  const schedule = () => {
    if (scheduled) return;
    scheduled = true;
    setImmediate(work);
  };

  return (req, res, next) => {
    if (options.bypass(req)) return next();
    // Bound to this request's async context, so its scope (request-scope.ts) follows it into the slice.
    line.push({ req, res, queuedAt: performance.now(), run: AsyncResource.bind(() => next()) });
    schedule();
  };
}
