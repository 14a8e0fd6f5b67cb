import type { IncomingHttpHeaders } from "node:http";
import autocannon from "autocannon";
import type { MixUrl, RouteKind } from "./url-mix";

/** What Chromium sends, so the server compresses as it does for people (brotli with compression 1.8). */
export const BROWSER_HEADERS = { "accept-encoding": "gzip, deflate, br, zstd", "user-agent": "threat-radar-bench-load" } as const;

export interface KindFigures {
  /** Latency (ms) of every answered request of this kind. */
  latencies: number[];
  timeouts: number;
  non2xx: number;
}

export interface LoadFigures {
  seconds: number;
  connections: number;
  /** Latency (ms) of every answered request, body included. */
  latencies: number[];
  /** Connection errors other than timeouts (resets, refused connections). */
  errors: number;
  timeouts: number;
  byStatus: Map<number, number>;
  /** 503 answers that carried `Retry-After`: deliberate load shedding, counted apart from failures. */
  shed: number;
  byKind: Map<RouteKind, KindFigures>;
  bytes: number;
}

/** A small seeded generator (mulberry32), so that every run sends the same sequences. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

function shuffled<T>(items: readonly T[], seed: number): T[] {
  const random = seededRandom(seed);
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [copy[i], copy[j]] = [copy[j]!, copy[i]!];
  }
  return copy;
}

function kindFigures(byKind: Map<RouteKind, KindFigures>, kind: RouteKind): KindFigures {
  let figures = byKind.get(kind);
  if (!figures) byKind.set(kind, (figures = { latencies: [], timeouts: 0, non2xx: 0 }));
  return figures;
}

/**
 * `connections` keep-alive connections, one request at a time each
 * (pipelining 1, as browsers do), for `seconds`, over the mix. Every
 * connection walks the whole mix in its own shuffled order, so the URLs are
 * spread evenly without every connection asking for the same one at once.
 * A request unanswered after `timeoutSeconds` is counted as a timeout and its
 * connection is replaced, as a client that gives up would do.
 */
export async function runLoad(options: {
  baseUrl: string;
  mix: readonly MixUrl[];
  connections: number;
  seconds: number;
  timeoutSeconds: number;
  onProgress?: (elapsedSeconds: number, answered: number) => void;
}): Promise<LoadFigures> {
  const figures: LoadFigures = {
    seconds: options.seconds,
    connections: options.connections,
    latencies: [],
    errors: 0,
    timeouts: 0,
    byStatus: new Map(),
    shed: 0,
    byKind: new Map(),
    bytes: 0,
  };
  let clients = 0;

  const setupClient = (client: autocannon.Client) => {
    // autocannon calls a request's setupRequest just before sending it, onResponse with its headers just before
    // the client's 'response' event, and on a timeout it sends the next request before emitting 'timeout'
    // (lib/httpClient.js), so the request a timeout belongs to is the one before the last sent.
    const state: { sent?: RouteKind; previous?: RouteKind; retryAfter: boolean } = { retryAfter: false };
    const requests = shuffled(options.mix, ++clients).map((url) => ({
      method: "GET" as const,
      path: url.path,
      headers: { ...BROWSER_HEADERS },
      setupRequest: (request: autocannon.Request) => {
        state.previous = state.sent;
        state.sent = url.kind;
        return request;
      },
      onResponse: (_status: number, _body: string, _context: object, headers: IncomingHttpHeaders | undefined) => {
        state.retryAfter = headers !== undefined && Object.keys(headers).some((name) => name.toLowerCase() === "retry-after");
      },
    }));
    client.setRequests(requests);
    client.on("response", (status, bytes, ms) => {
      const kind = kindFigures(figures.byKind, state.sent ?? "unknown");
      figures.latencies.push(ms);
      kind.latencies.push(ms);
      figures.bytes += bytes;
      figures.byStatus.set(status, (figures.byStatus.get(status) ?? 0) + 1);
      if (status < 200 || status > 299) kind.non2xx += 1;
      if (status === 503 && state.retryAfter) figures.shed += 1;
      state.retryAfter = false;
    });
    client.on("timeout" as "response", () => {
      kindFigures(figures.byKind, state.previous ?? "unknown").timeouts += 1;
    });
  };

  let answered = 0;
  let elapsed = 0;
  const result = await new Promise<autocannon.Result>((done, fail) => {
    const instance = autocannon(
      {
        url: options.baseUrl,
        connections: options.connections,
        duration: options.seconds,
        timeout: options.timeoutSeconds,
        pipelining: 1,
        setupClient,
      },
      (error, result) => (error ? fail(error) : done(result)),
    );
    instance.on("response", () => (answered += 1));
    instance.on("tick", () => {
      elapsed += 1;
      if (elapsed % 10 === 0) options.onProgress?.(elapsed, answered);
    });
  });
  figures.timeouts = result.timeouts;
  figures.errors = result.errors - result.timeouts;
  return figures;
}

/** Two runs against the same target as one: counts add up, latencies pool. */
export function mergeLoadFigures(a: LoadFigures, b: LoadFigures): LoadFigures {
  const byStatus = new Map(a.byStatus);
  for (const [status, n] of b.byStatus) byStatus.set(status, (byStatus.get(status) ?? 0) + n);
  const byKind = new Map<RouteKind, KindFigures>();
  for (const [kind, f] of [...a.byKind, ...b.byKind]) {
    const merged = kindFigures(byKind, kind);
    // Not push(...f.latencies): spread arguments overflow the call stack past about 100,000 answers.
    merged.latencies = merged.latencies.concat(f.latencies);
    merged.timeouts += f.timeouts;
    merged.non2xx += f.non2xx;
  }
  return {
    seconds: a.seconds + b.seconds,
    connections: a.connections,
    latencies: [...a.latencies, ...b.latencies],
    errors: a.errors + b.errors,
    timeouts: a.timeouts + b.timeouts,
    byStatus,
    shed: a.shed + b.shed,
    byKind,
    bytes: a.bytes + b.bytes,
  };
}
