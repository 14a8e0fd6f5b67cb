import autocannon from "autocannon";
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

/**
 * Few connections at a steady rate: the point is the latency a reader sees
 * beside an import, not the server's capacity, and a saturating load would
 * take the CPU the measured import needs (the machine has 2 cores).
 */
const CONNECTIONS = 4;
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
  byPath: Record<(typeof SERVING_PATHS)[number], LatencyFigures>;
}

const figuresOf = (latencies: number[]): LatencyFigures => ({
  requests: latencies.length,
  p50Ms: percentile(latencies, 50),
  p95Ms: percentile(latencies, 95),
  maxMs: percentile(latencies, 100),
});

/**
 * Requests the paths in turn on a few connections until `until` settles (or
 * for `seconds`), and reports the answers' latency percentiles.
 */
export async function measureServing(baseUrl: string, until: { seconds: number } | { done: Promise<unknown> }): Promise<ServingFigures> {
  const byPath = new Map<(typeof SERVING_PATHS)[number], number[]>(SERVING_PATHS.map((path) => [path, []]));
  // autocannon calls a request's onResponse just before it emits that response's latency, in the same turn.
  let answered: (typeof SERVING_PATHS)[number] = SERVING_PATHS[0];
  let non2xx = 0;
  const instance = autocannon(
    {
      url: baseUrl,
      connections: CONNECTIONS,
      pipelining: 1,
      overallRate: REQUESTS_PER_SECOND,
      timeout: 30,
      // autocannon needs a duration; a run that ends with an import is stopped below.
      duration: "seconds" in until ? until.seconds : 3_600,
      requests: SERVING_PATHS.map((path) => ({
        method: "GET" as const,
        path,
        headers: { "accept-encoding": "gzip" },
        onResponse: () => void (answered = path),
      })),
    },
    () => undefined,
  );
  instance.on("response", (_client, status, _bytes, ms) => {
    byPath.get(answered)!.push(ms);
    if (status < 200 || status > 299) non2xx += 1;
  });
  const finished = new Promise<autocannon.Result>((done) => instance.once("done", done));
  if ("done" in until) {
    await until.done.catch(() => undefined);
    instance.stop();
  }
  const result = await finished;
  return {
    ...figuresOf([...byPath.values()].flat()),
    non2xx,
    errors: result.errors,
    byPath: Object.fromEntries([...byPath].map(([path, ms]) => [path, figuresOf(ms)])) as ServingFigures["byPath"],
  };
}
