import { gzipSync } from "node:zlib";

export interface LatencySummary {
  name: string;
  runs: number;
  p50: number;
  p95: number;
  max: number;
  bytes: number;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

/** Every summary `measure` returned in this process, in order: `npm run bench -- --summary-out` writes them for the side-by-side table. */
export const measured: LatencySummary[] = [];

/**
 * Sequential requests to one URL on a loopback server: each time is the
 * whole response, body included, as a browser with a warm connection sees it.
 * A few warm-up requests come first and are not counted.
 */
export async function measure(name: string, url: string, runs: number, init: RequestInit = {}, warmup = 3): Promise<LatencySummary> {
  let bytes = 0;
  for (let i = 0; i < warmup; i++) await (await fetch(url, init)).arrayBuffer();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    const res = await fetch(url, init);
    const body = await res.arrayBuffer();
    times.push(performance.now() - started);
    if (!res.ok) throw new Error(`${url} answered ${res.status}`);
    bytes = body.byteLength;
  }
  times.sort((a, b) => a - b);
  const summary = { name, runs, p50: percentile(times, 50), p95: percentile(times, 95), max: times.at(-1) ?? 0, bytes };
  measured.push(summary);
  return summary;
}

/** Time of one cold call (first after a data change) of an async function. */
export async function timeOnce<T>(run: () => Promise<T>): Promise<number> {
  const started = performance.now();
  await run();
  return performance.now() - started;
}

export function gzipSize(content: Buffer | string): number {
  return gzipSync(content, { level: 9 }).byteLength;
}

export function printTable(title: string, rows: Array<Record<string, string | number>>): void {
  console.log(`\n${title}`);
  console.table(rows);
}

export const ms = (value: number) => value.toFixed(1);

/** One row of a latency table. */
export const latencyRow = (label: string) => (r: LatencySummary) => ({ [label]: r.name, p50: ms(r.p50), p95: ms(r.p95), max: ms(r.max) });

/**
 * Bytes and CPU of gzip at each level for real responses, to choose the
 * level of dynamic responses (COMPRESSION_LEVEL): pages from the page cache
 * are compressed once, at 9, whatever is chosen here. CPU is the median of
 * repeated runs, per MB of input.
 */
export function compressionTable(samples: ReadonlyArray<{ name: string; body: string }>): Array<Record<string, string | number>> {
  const levels = [1, 3, 4, 6, 9];
  const input = Buffer.concat(samples.map((sample) => Buffer.from(sample.body)));
  const megabytes = input.length / 1e6;
  return levels.map((level) => {
    const times: number[] = [];
    let size = 0;
    for (let run = 0; run < 15; run++) {
      const started = process.cpuUsage();
      size = samples.reduce((sum, sample) => sum + gzipSync(sample.body, { level }).length, 0);
      const used = process.cpuUsage(started);
      times.push((used.user + used.system) / 1000);
    }
    times.sort((a, b) => a - b);
    return {
      level,
      "bytes out": size,
      "ratio %": ((100 * size) / input.length).toFixed(1),
      "CPU ms per MB in": (times[Math.floor(times.length / 2)]! / megabytes).toFixed(1),
    };
  });
}
