import type { Server } from "node:http";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { SNAPSHOT_NOW } from "../setup/snapshot-database";
import { createTestApp, type TestApp } from "../../helpers/test-app";

let t: TestApp;
let server: Server;
let base: string;
beforeAll(async () => {
  t = await createTestApp({
    databasePath: inject("snapshotDatabase"),
    now: () => new Date(SNAPSHOT_NOW),
    env: {
      RATE_LIMIT_PAGES_MAX: "100000",
      RATE_LIMIT_API_MAX: "100000",
      RATE_LIMIT_LOOKUP_MAX: "100000",
      // This test is about input, not load: fifty requests at a time must wait in line, not be turned away.
      SERVE_QUEUE_MS: "60000",
    },
  });
  // One listener for all requests (supertest would open one per request).
  server = t.app.listen(0, "127.0.0.1");
  await new Promise((done) => server.once("listening", done));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
afterAll(async () => {
  await new Promise((done) => server?.close(done));
  await t?.close();
});

/** mulberry32: a small seeded PRNG, so every run tries the same strings. */
function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let x = state;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

const PIECES = [
  "<script>alert(1)</script>",
  '"><svg onload=alert(1)>',
  "<img src=x onerror=y>",
  "'",
  '"',
  "&",
  "&amp;",
  "[.]",
  "(.)",
  "[dot]",
  "[:]",
  "[@]",
  "hxxp://",
  "https://",
  "http://",
  ".",
  "..",
  "/",
  "\\",
  ":",
  "@",
  "%",
  "%2e",
  "?",
  "#",
  "1",
  "10",
  "255",
  "256",
  "0x7f",
  "::",
  "ff",
  "com",
  "example",
  "xn--",
  "-",
  "_",
  " ",
  "\t",
  "\u0000",
  "\u200b",
  "é",
  "例",
  "🙂",
  "a".repeat(64),
  "d41d8cd98f00b204e9800998ecf8427e",
  "8.8.8.8",
];

function randomString(next: () => number): string {
  const parts: string[] = [];
  const count = 1 + Math.floor(next() * 6);
  for (let i = 0; i < count; i += 1) {
    if (next() < 0.6) parts.push(PIECES[Math.floor(next() * PIECES.length)]!);
    else parts.push(String.fromCharCode(32 + Math.floor(next() * 95)));
  }
  return parts.join("");
}

/** What the markup pieces above would inject if a page echoed them unescaped. */
const INJECTED = /alert\(1\)<\/script>|<svg onload|<img src=x/;
const COUNT = 10_000;
const PARALLEL = 50;
/** Ten thousand server-rendered pages take a while on a busy machine; this is a budget, not a timing assertion. */
const FUZZ_TIMEOUT_MS = 600_000;

async function inBatches(items: string[], run: (item: string) => Promise<void>): Promise<void> {
  for (let start = 0; start < items.length; start += PARALLEL) await Promise.all(items.slice(start, start + PARALLEL).map(run));
}

describe("random input never breaks the IOC radar", () => {
  const next = prng(20_250_124);
  const inputs = Array.from({ length: COUNT }, () => randomString(next));

  it(
    `${COUNT} random strings as :ioc never give a 5xx nor reflect markup`,
    async () => {
      const statuses = new Map<number, number>();
      await inBatches(inputs, async (input) => {
        const res = await fetch(`${base}/ioc-radar/${encodeURIComponent(input)}`, { redirect: "manual" });
        const body = await res.text();
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        expect(res.status, input).toBeLessThan(500);
        expect([200, 301, 404], input).toContain(res.status);
        expect(INJECTED.test(body), input).toBe(false);
      });
      expect(statuses.get(404)).toBeGreaterThan(0);
      expect((statuses.get(200) ?? 0) + (statuses.get(301) ?? 0)).toBeGreaterThan(0);
    },
    FUZZ_TIMEOUT_MS,
  );

  it(
    `${COUNT} random strings as bulk-lookup text never give a 5xx`,
    async () => {
      await inBatches(inputs, async (input) => {
        const res = await fetch(`${base}/api/v1/iocs/lookup`, {
          method: "POST",
          headers: { "Content-Type": "application/json" },
          body: JSON.stringify({ text: input }),
        });
        expect(res.status, input).toBe(200);
        expect(res.headers.get("content-type")).toContain("application/json");
        const body = (await res.json()) as { count: number; results: unknown[] };
        expect(body.count).toBe(body.results.length);
      });
      const all = await fetch(`${base}/api/v1/iocs/lookup`, { method: "POST", headers: { "Content-Type": "text/plain" }, body: inputs.join("\n") });
      expect(all.status).toBe(200);
    },
    FUZZ_TIMEOUT_MS,
  );
});
