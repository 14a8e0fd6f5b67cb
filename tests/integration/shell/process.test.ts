import { mkdtempSync, rmSync } from "node:fs";
import { Agent, request as httpRequest, type IncomingMessage } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { freePort, startServerProcess, waitForHealthy } from "../../helpers/server-process";
import { serverDatabases } from "../../helpers/test-database";

const dir = mkdtempSync(join(tmpdir(), "threat-radar-process-"));
const databases = serverDatabases(dir);
afterAll(async () => {
  await databases.dropAll();
  rmSync(dir, { recursive: true, force: true });
});

describe("server process", () => {
  it("refuses to start on a bad variable and names it", async () => {
    const server = startServerProcess({ PORT: "not-a-port", ...(await databases.env("a.sqlite")) });
    expect(await server.exited).toBe(1);
    expect(server.output()).toContain("PORT");
    expect(server.output()).not.toMatch(/at .*\.ts:\d+/);
  });

  it("creates and migrates its database on first start (a SQLite file in a new folder) and shuts down gracefully on SIGTERM", async () => {
    const port = await freePort();
    const server = startServerProcess({ PORT: String(port), ...(await databases.env("nested/db.sqlite")) });
    await waitForHealthy(server.url);
    // Ready means the migrated tables answer.
    const ready = await fetch(`${server.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ status: "ready", database: "ok" });
    const page = await fetch(`${server.url}/`);
    expect(page.status).toBe(200);
    await page.text();

    server.child.kill("SIGTERM");
    expect(await server.exited).toBe(0);
    expect(server.output()).toContain("shutting down");
    await expect(fetch(`${server.url}/healthz`)).rejects.toThrow();
  });

  it("finishes a request in flight after SIGTERM, refusing new connections meanwhile, then exits 0", async () => {
    const port = await freePort();
    const server = startServerProcess({ PORT: String(port), ...(await databases.env("in-flight.sqlite")) });
    await waitForHealthy(server.url);

    // A bulk lookup that asks before sending its body (Expect: 100-continue): once the server has
    // answered "continue", the request is in flight on the server until the client sends the body.
    const body = JSON.stringify({ text: "Seen: 8.8.8[.]8 and 9.9.9.9" });
    const lookup = httpRequest({
      host: "127.0.0.1",
      port,
      method: "POST",
      path: "/api/v1/iocs/lookup",
      agent: false,
      headers: { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(body), Expect: "100-continue" },
    });
    const response = new Promise<{ status: number; text: string }>((resolve, reject) => {
      lookup.on("response", (res: IncomingMessage) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => (text += chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
        res.on("error", reject);
      });
      lookup.on("error", reject);
    });
    response.catch(() => undefined); // awaited below; a reset before then must not count as unhandled
    await new Promise<void>((resolve) => lookup.once("continue", resolve));

    server.child.kill("SIGTERM");
    await expect.poll(() => server.output(), { timeout: 10_000 }).toContain("shutting down");
    // No longer accepting: a new connection is refused while the lookup is still open.
    await expect(fetch(`${server.url}/healthz`)).rejects.toThrow();
    expect(server.child.exitCode).toBeNull();

    lookup.end(body);
    const answer = await response;
    expect(answer.status).toBe(200);
    const result = JSON.parse(answer.text) as { count: number; results: Array<{ value: string }> };
    expect(result.count).toBe(2);
    expect(result.results.map((item) => item.value).sort()).toEqual(["8.8.8.8", "9.9.9.9"]);

    expect(await server.exited).toBe(0);
    expect(server.output()).toContain('"msg":"stopped"');
  });

  it("closes idle keep-alive connections at once on SIGTERM and lets a busy client go, instead of waiting out the grace period", async () => {
    const port = await freePort();
    // A grace period longer than this test may take: only closing idle connections lets it end in time.
    const server = startServerProcess({ PORT: String(port), ...(await databases.env("keep-alive.sqlite")), SHUTDOWN_GRACE_MS: "120000" });
    await waitForHealthy(server.url);
    const agent = new Agent({ keepAlive: true, maxSockets: 4 });
    const get = (path: string) =>
      new Promise<IncomingMessage>((resolve, reject) => {
        const req = httpRequest({ host: "127.0.0.1", port, path, agent }, (res) => {
          res.resume();
          res.on("end", () => resolve(res));
        });
        req.on("error", reject);
        req.end();
      });
    await Promise.all([get("/healthz"), get("/api/v1/cves"), get("/"), get("/ioc-radar")]);
    const idleSockets = Object.values(agent.freeSockets).flat();
    expect(idleSockets.length).toBeGreaterThan(0);
    const closed = Promise.all(idleSockets.map((socket) => new Promise((resolve) => socket!.once("close", resolve))));

    // A client that keeps asking on its keep-alive connections while the server leaves.
    // Without "Connection: close" on its answers it would keep the server busy until the grace period ends.
    let asking = true;
    const client = (async () => {
      while (asking) if (!(await get("/api/v1/sources").catch(() => null))) break;
    })();

    server.child.kill("SIGTERM");
    await closed;
    expect(await server.exited).toBe(0);
    asking = false;
    await client;
    agent.destroy();
    expect(server.output()).toContain('"msg":"stopped"');
  }, 60_000);
});
