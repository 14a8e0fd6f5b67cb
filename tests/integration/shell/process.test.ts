import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { freePort, startServerProcess, waitForHealthy } from "../../helpers/server-process";

const dir = mkdtempSync(join(tmpdir(), "threat-radar-process-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("server process", () => {
  it("refuses to start on a bad variable and names it", async () => {
    const server = startServerProcess({ PORT: "not-a-port", DATABASE_PATH: join(dir, "a.sqlite") });
    expect(await server.exited).toBe(1);
    expect(server.output()).toContain("PORT");
    expect(server.output()).not.toMatch(/at .*\.ts:\d+/);
  });

  it("creates its SQLite file on first start and shuts down gracefully on SIGTERM", async () => {
    const port = await freePort();
    const server = startServerProcess({ PORT: String(port), DATABASE_PATH: join(dir, "nested/db.sqlite") });
    await waitForHealthy(server.url);
    const page = await fetch(`${server.url}/`);
    expect(page.status).toBe(200);
    await page.text();

    server.child.kill("SIGTERM");
    expect(await server.exited).toBe(0);
    expect(server.output()).toContain("shutting down");
    await expect(fetch(`${server.url}/healthz`)).rejects.toThrow();
  });
});
