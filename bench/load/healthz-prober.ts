import { Agent, request } from "node:http";
import { performance } from "node:perf_hooks";

/**
 * The `/healthz` prober of `npm run bench:load`, run as its own process (see
 * probe.ts) so that the load generator's work never delays a probe or its
 * timing.
 *
 * A probe is due every `intervalMs`, on one keep-alive connection of its own.
 * A due probe is sent as soon as the connection is free, and its latency is
 * counted from when it was due, not from when it was sent: a 10 s stall then
 * counts for every probe it delayed (100 of them), not for one. This is the
 * correction for coordinated omission that wrk2 and HdrHistogram apply.
 */

export interface ProbeSummary {
  /** Probes that fell due while the prober ran. */
  due: number;
  /** Latency (ms, from when each was due) of every probe answered. */
  latencies: number[];
  /** Answers other than 200, by status. */
  failures: Record<string, number>;
  /** How long (ms) each probe still unanswered when the prober stopped had waited. */
  unansweredWaits: number[];
}

const [target, intervalArg] = process.argv.slice(2);
if (!target || !process.send) {
  throw new Error("healthz-prober.ts is started by bench/load/probe.ts with the URL to probe and an IPC channel");
}
const intervalMs = Number(intervalArg ?? 100);
const agent = new Agent({ keepAlive: true, maxSockets: 1 });
const dueTimes: number[] = [];
const latencies: number[] = [];
const failures: Record<string, number> = {};
let inFlightSince: number | null = null;
let due = 0;

function probe(dueAt: number): void {
  inFlightSince = dueAt;
  const done = (status: string) => {
    inFlightSince = null;
    if (status === "200") latencies.push(performance.now() - dueAt);
    else failures[status] = (failures[status] ?? 0) + 1;
    const next = dueTimes.shift();
    if (next !== undefined) probe(next);
  };
  const req = request(target!, { agent, headers: { "cache-control": "no-cache" } }, (res) => {
    res.resume();
    res.once("end", () => done(String(res.statusCode)));
    res.once("error", () => done("response error"));
  });
  req.once("error", (error) => done(`error ${(error as NodeJS.ErrnoException).code ?? error.message}`));
  req.end();
}

const ticker = setInterval(() => {
  due += 1;
  const now = performance.now();
  if (inFlightSince === null) probe(now);
  else dueTimes.push(now);
}, intervalMs);

process.on("message", (message) => {
  if (message !== "stop") return;
  clearInterval(ticker);
  const now = performance.now();
  const waiting = [...(inFlightSince === null ? [] : [inFlightSince]), ...dueTimes];
  const summary: ProbeSummary = { due, latencies, failures, unansweredWaits: waiting.map((dueAt) => now - dueAt) };
  process.send!(summary, () => process.exit(0));
});
process.send({ ready: true });
