import { extractIndicators } from "../../../shared/ioc/extract";
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Writable } from "node:stream";
import pino from "pino";
import { Suspense, use } from "react";
import request from "supertest";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { createApp } from "../../../server/app";
import { loadEnv } from "../../../server/config/env";
import { openSqliteDatabase, type DatabaseHandle } from "../../../server/db/connection";
import { migrateToLatest } from "../../../server/db/migrate";
import { loadPageOnServer, rootLoaderOnServer } from "../../../server/loaders/page-loaders";
import { readBuildInfo, readClientAssets } from "../../../server/ssr/assets";
import { createSsrRenderer } from "../../../server/ssr/entry";
import { pageRoutes } from "../../../shared/routes/page-routes";
import type { PageRoute } from "../../../shared/routes/types";
import { readBootState } from "../../helpers/html";
import { DIST_DIR, PROJECT_ROOT } from "../../helpers/paths";

/**
 * What a page does when its server side goes wrong: a loader that throws, a
 * render that never finishes. The app is built here (not with the shared
 * test-app helper) to read what it logs.
 */

interface LoggedApp {
  app: ReturnType<typeof createApp>;
  database: DatabaseHandle;
  logs: Array<Record<string, unknown>>;
}

const dirs: string[] = [];
const opened: DatabaseHandle[] = [];
afterAll(async () => {
  await Promise.all(opened.map((database) => database.close().catch(() => undefined)));
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

async function loggedApp(env: Record<string, string>, pages: readonly PageRoute[] = pageRoutes): Promise<LoggedApp> {
  const dir = mkdtempSync(join(tmpdir(), "threat-radar-errors-"));
  dirs.push(dir);
  const database = openSqliteDatabase(join(dir, "test.sqlite"));
  opened.push(database);
  await migrateToLatest(database.db);
  const logs: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logs.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  const renderer = createSsrRenderer({ loadPage: loadPageOnServer, rootLoader: rootLoaderOnServer, pages });
  const clientDir = resolve(DIST_DIR, "client");
  const app = createApp({
    env: loadEnv({ NODE_ENV: "test", ...env }),
    // A plain connection, which the tests close to make every loader fail.
    reads: { db: database.db, dataVersion: () => "errors-test", importRunning: () => false },
    extract: async (text, limit) => extractIndicators(text, limit),
    logger: pino({ level: "error" }, sink),
    getRenderer: async () => renderer,
    routePatterns: renderer.routePatterns,
    assets: readClientAssets(clientDir, pageRoutes),
    build: readBuildInfo(clientDir),
    clientDir,
  });
  return { app, database, logs };
}

const STACK_FRAME = /\bat (?:async )?\S+ \(|\bat \S+:\d+:\d+|\.tsx?:\d+|node_modules/;

describe("a page loader that throws on the server", () => {
  it("answers 500 with the 'Something went wrong' screen naming the support e-mail, logs the error, and sends no stack or message", async () => {
    const t = await loggedApp({ PUBLIC_SUPPORT_EMAIL: "soc@example.org", PUBLIC_OLD_BASE_URL: "https://old.example.org/" });
    // The CVE list's loader queries the database; with the database gone, it throws.
    await t.database.close();
    const internal = await t.database.db
      .selectFrom("cves")
      .select("id")
      .execute()
      .then(
        () => "",
        (error: Error) => error.message,
      );
    expect(internal).not.toBe("");

    const res = await request(t.app).get("/cve-radar").expect(500);
    expect(res.headers["content-type"]).toMatch(/text\/html/);
    expect(res.headers["cache-control"]).toBe("private, no-cache");
    expect(res.text).toMatch(/^<!DOCTYPE html><html lang="en-US">/);
    expect(res.text).toContain("<title>Something went wrong · Threat Radar</title>");
    expect(res.text).toContain('<main class="error-screen" id="main-content" data-status="500">');
    expect(res.text).toContain('<h1 class="error-screen__title">Something went wrong</h1>');
    expect(res.text).toContain("contact soc@example.org support if it persists");
    expect(res.text).toContain('href="https://old.example.org/"');
    expect(res.text).toContain("Back to Home");
    // The layout is replaced.
    expect(res.text).not.toContain('aria-label="Main"');
    expect(res.text.endsWith("</div></body></html>")).toBe(true);

    // Nothing of the failure reaches the browser: no stack, no internal message, no file path.
    expect(res.text).not.toMatch(STACK_FRAME);
    expect(res.text).not.toContain(internal);
    expect(res.text).not.toContain(PROJECT_ROOT);
    const hydration = /window\.__staticRouterHydrationData = JSON\.parse\((".*?")\);/.exec(res.text);
    const embedded = JSON.parse(JSON.parse(hydration![1]!)) as { errors: Record<string, unknown> };
    expect(embedded.errors).toEqual({ root: { message: "Internal error", __type: "Error" } });
    expect(readBootState(res.text).config.supportEmail).toBe("soc@example.org");

    // The operator gets the real error, with its stack.
    const logged = t.logs.find((entry) => entry.msg === "page loader failed");
    expect(logged).toMatchObject({ url: "/cve-radar", err: { message: internal } });
    expect((logged?.err as { stack?: string }).stack).toMatch(STACK_FRAME);

    // Its payload says the same, as JSON.
    const payload = await request(t.app).get("/cve-radar/_payload.json").expect(500);
    expect(payload.body).toEqual({ kind: "error", error: { statusCode: 500, message: "Internal error" } });
    expect(JSON.stringify(payload.body)).not.toContain(internal);
    expect(t.logs.filter((entry) => entry.msg === "page loader failed").map((entry) => entry.url)).toEqual(["/cve-radar", "/cve-radar/_payload.json"]);
  });

  it("keeps 404 and 429 as they are: only unexpected errors are hidden", async () => {
    const t = await loggedApp({ RATE_LIMIT_PAGES_MAX: "1" });
    const missing = await request(t.app).get("/no/such/page").expect(404);
    expect(missing.text).toContain("Page not found: /no/such/page");
    const limited = await request(t.app).get("/").expect(429);
    expect(limited.text).toContain("Too many requests");
    expect(t.logs.filter((entry) => entry.msg === "page loader failed")).toEqual([]);
  });
});

/** A page whose content never arrives: React streams the shell with the fallback and then waits for ever. */
const never = new Promise<never>(() => undefined);
function NeverArrives(): null {
  use(never);
  return null;
}
function StreamingForever() {
  return (
    <section>
      <h1>Slow page</h1>
      <Suspense fallback={<p id="still-loading">Still loading…</p>}>
        <NeverArrives />
      </Suspense>
    </section>
  );
}
/** The same without a Suspense boundary: not even the shell can finish. */
function ShellNeverReady() {
  return <NeverArrives />;
}
const meta = () => ({ title: "Slow", description: "A page for the SSR abort timer tests." });
const slowPages: PageRoute[] = [
  // Their module is this file, which no chunk of the build holds: the pages render with no preloads.
  { id: "home", path: "/", module: "tests/integration/shell/errors.test.tsx", load: async () => ({ Component: StreamingForever, meta }) },
  { id: "cve-list", path: "/cve-radar", module: "tests/integration/shell/errors.test.tsx", load: async () => ({ Component: ShellNeverReady, meta }) },
];

describe("the SSR abort timer (SSR_ABORT_MS)", () => {
  let server: Server | undefined;
  afterEach(async () => {
    await new Promise((done) => (server ? server.close(done) : done(undefined)));
    server = undefined;
  });

  async function listen(abortMs: number) {
    const t = await loggedApp({ SSR_ABORT_MS: String(abortMs) }, slowPages);
    server = t.app.listen(0, "127.0.0.1");
    await new Promise((done) => server!.once("listening", done));
    return { ...t, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
  }

  it("ends a page still streaming after the timeout: the shell came first, the rest is left to the browser", async () => {
    const abortMs = 400;
    const t = await listen(abortMs);
    const started = performance.now();
    const res = await fetch(`${t.url}/`, { headers: { "Accept-Encoding": "identity" } });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let html = "";
    let shellAt: number | null = null;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      html += decoder.decode(value, { stream: true });
      if (shellAt === null && html.includes("Still loading…")) shellAt = performance.now() - started;
    }
    const endedAt = performance.now() - started;

    // The shell with the fallback was sent before the timer ran out; the response ended only when it did.
    expect(shellAt).not.toBeNull();
    expect(shellAt!).toBeLessThan(endedAt);
    expect(endedAt).toBeGreaterThanOrEqual(abortMs - 20);
    expect(html).toContain("<h1>Slow page</h1>");
    // React marks the unfinished boundary for the browser to render, and the document is closed properly.
    expect(html).toMatch(/<template[^>]*data-dgst|\$RX|\$!/);
    expect(html.endsWith("</div></body></html>")).toBe(true);
    expect(t.logs.some((entry) => entry.msg === "error while rendering")).toBe(true);
  });

  it("answers 500 with a plain error page when not even the shell was ready in time", async () => {
    const t = await listen(300);
    const res = await fetch(`${t.url}/cve-radar`, { headers: { "Accept-Encoding": "identity" } });
    expect(res.status).toBe(500);
    const html = await res.text();
    expect(html).toContain("<h1>Something went wrong</h1>");
    expect(html).not.toMatch(STACK_FRAME);
    expect(t.logs.some((entry) => entry.msg === "server render failed")).toBe(true);
  });
});
