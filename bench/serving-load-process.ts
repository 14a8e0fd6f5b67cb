import { Agent, request } from "node:http";
import { performance } from "node:perf_hooks";
import {
  CONNECTIONS,
  figuresOf,
  REQUESTS_PER_SECOND,
  SERVING_PATHS,
  type ServingFigures,
  type ServingLoadCommand,
  type ServingLoadReply,
  type ServingPath,
} from "./import-serving";

/**
 * The load of `bench:import`'s serving measurement, run as its own process
 * (import-serving.ts says why): one request every 1/REQUESTS_PER_SECOND s,
 * the paths in turn, on a few keep-alive connections, until told to stop.
 * The answers received between an "open" and a "close" are timed from when
 * each request was issued, so one that waited for a free connection counts
 * that wait too.
 *
 * The arrivals are spread evenly on purpose. With autocannon's overall rate,
 * each connection sends its quota for the second back to back and then waits
 * for the next second: the 20 requests of a second left together, one stall
 * of the server of 10–15 ms delayed 4 to 12 answers at once (2–6 % of those
 * during EPSS's 10-second import), and the p95 of a short import depended on
 * whether such a stall met a burst.
 */

const [baseUrl] = process.argv.slice(2);
if (!baseUrl || !process.send) {
  throw new Error("serving-load-process.ts is started by bench/import-serving.ts with the server's URL and an IPC channel");
}
const reply = (message: ServingLoadReply) => process.send!(message);

interface Window {
  latencies: Map<ServingPath, number[]>;
  non2xx: number;
  errors: number;
}
let window: Window | null = null;

const agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS });
let turn = 0;

function send(): void {
  const path = SERVING_PATHS[turn++ % SERVING_PATHS.length]!;
  const due = performance.now();
  const answered = (ok: boolean) => {
    if (!window) return;
    window.latencies.get(path)!.push(performance.now() - due);
    if (!ok) window.non2xx += 1;
  };
  const req = request(`${baseUrl}${path}`, { agent, headers: { "accept-encoding": "gzip" } }, (res) => {
    res.resume();
    res.once("end", () => answered(res.statusCode !== undefined && res.statusCode >= 200 && res.statusCode <= 299));
    res.once("error", () => window && (window.errors += 1));
  });
  req.once("error", () => window && (window.errors += 1));
  req.end();
}

const ticker = setInterval(send, 1000 / REQUESTS_PER_SECOND);

function figures({ latencies, non2xx, errors }: Window): ServingFigures {
  return {
    ...figuresOf([...latencies.values()].flat()),
    non2xx,
    errors,
    byPath: Object.fromEntries([...latencies].map(([path, ms]) => [path, figuresOf(ms)])) as ServingFigures["byPath"],
  };
}

process.on("message", (command: ServingLoadCommand) => {
  if (command === "open") {
    window = { latencies: new Map(SERVING_PATHS.map((path) => [path, []])), non2xx: 0, errors: 0 };
  } else if (command === "close" && window) {
    reply({ figures: figures(window) });
    window = null;
  } else if (command === "stop") {
    clearInterval(ticker);
    agent.destroy();
    process.exit(0);
  }
});
reply({ ready: true });
