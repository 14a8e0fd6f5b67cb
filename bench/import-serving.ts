import { fork } from "node:child_process";
import { resolve } from "node:path";
import { percentile } from "./load/report";

/**
 * A few pages and answers of every kind the server renders from the tables
 * an import rewrites: lists, a filtered list, a search, and the sources API.
 */
export const SERVING_PATHS = [
  "/",
  "/cve-radar",
  "/cve-radar?kev=1",
  "/cve-radar?q=remote%20code%20execution",
  "/ioc-radar",
  "/ioc-radar?type=domain",
  "/api/v1/sources",
] as const;

export type ServingPath = (typeof SERVING_PATHS)[number];

/**
 * Few connections at a steady rate: the point is the latency a reader sees
 * beside an import, not the server's capacity, and a saturating load would
 * take the CPU the measured import needs (the machine has 2 cores).
 */
export const CONNECTIONS = 4;
export const REQUESTS_PER_SECOND = 20;

export interface LatencyFigures {
  requests: number;
  p50Ms: number;
  p95Ms: number;
  maxMs: number;
}

export interface ServingFigures extends LatencyFigures {
  non2xx: number;
  errors: number;
  /** Each path's own figures: the mix's p95 can be one path's alone. */
  byPath: Record<ServingPath, LatencyFigures>;
}

export const figuresOf = (latencies: number[]): LatencyFigures => ({
  requests: latencies.length,
  p50Ms: percentile(latencies, 50),
  p95Ms: percentile(latencies, 95),
  maxMs: percentile(latencies, 100),
});

/** What the load process (serving-load-process.ts) is told, and what it answers. */
export type ServingLoadCommand = "open" | "close" | "stop";
export type ServingLoadReply = { ready: true } | { figures: ServingFigures };

/**
 * One steady load on the server, measured in windows: warm-up, idle, during
 * an import.
 */
export interface ServingLoad {
  /** The answers received until `until` settles (or for `seconds`). */
  measure(until: { seconds: number } | { done: Promise<unknown> }): Promise<ServingFigures>;
  stop(): Promise<void>;
}

/**
 * Starts the load in a process of its own (serving-load-process.ts), on the
 * same connections for every window. The benchmark's own process starts the
 * import's child, samples file sizes and parses the child's output: timed in
 * that process, a request waited for all of it. Its event loop stalled 14 ms
 * when it spawned EPSS's import, and the 4 to 8 answers in flight then took
 * 13–19 ms, against about 2 ms idle: 2–4 % of the answers during EPSS's
 * 10-second import, enough to decide its p95 on their own.
 */
export async function startServingLoad(baseUrl: string): Promise<ServingLoad> {
  const child = fork(resolve(import.meta.dirname, "serving-load-process.ts"), [baseUrl], {
    execArgv: ["--import", "tsx"],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const exited = new Promise<never>((_, reject) => child.once("exit", (code) => reject(new Error(`the serving load process exited (${code})`))));
  exited.catch(() => undefined);
  const reply = () =>
    Promise.race([new Promise<ServingLoadReply>((answer) => child.once("message", (message) => answer(message as ServingLoadReply))), exited]);
  const send = (command: ServingLoadCommand) => child.send(command);
  await reply();
  return {
    async measure(until) {
      send("open");
      await ("done" in until ? until.done.catch(() => undefined) : new Promise((done) => setTimeout(done, until.seconds * 1000)));
      const answer = reply();
      send("close");
      const closed = await answer;
      if (!("figures" in closed)) throw new Error("the serving load process answered a window's close without figures");
      return closed.figures;
    },
    async stop() {
      send("stop");
      await exited.catch(() => undefined);
    },
  };
}
