import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { DATA_DIR } from "../../helpers/paths";
import { freePort, startServerProcess, waitForHealthy, type ServerProcess } from "../../helpers/server-process";
import { serverDatabases, type ServerDatabase } from "../../helpers/test-database";

const dir = mkdtempSync(join(tmpdir(), "threat-radar-roles-"));
// A mirror holding only the KEV catalogue: every other source is skipped, so nothing reaches the network.
const mirror = join(dir, "mirror");
mkdirSync(mirror);
symlinkSync(join(DATA_DIR, "cisa-kev"), join(mirror, "cisa-kev"));
const databases = serverDatabases(dir);
afterAll(async () => {
  await databases.dropAll();
  rmSync(dir, { recursive: true, force: true });
});

let running: ServerProcess[] = [];
afterEach(async () => {
  for (const server of running) {
    server.child.kill("SIGTERM");
    await server.exited;
  }
  running = [];
});

async function start(role: string, database: ServerDatabase): Promise<ServerProcess> {
  const server = startServerProcess({
    PORT: String(await freePort()),
    ...database.env,
    SERVER_ROLE: role,
    SYNC_ENABLED: "true",
    SYNC_MIRROR_DIR: mirror,
  });
  running.push(server);
  await waitForHealthy(server.url);
  return server;
}

/** Waits (up to two minutes: the import shares the machine) for the KEV import to be recorded as a success. */
async function kevImported(database: ServerDatabase): Promise<string> {
  const handle = database.open();
  try {
    for (let i = 0; i < 1200; i++) {
      const row = await handle.db.selectFrom("sources").select("last_success_at").where("name", "=", "cisa-kev").executeTakeFirst();
      if (row?.last_success_at) return row.last_success_at;
      await delay(100);
    }
  } finally {
    await handle.close();
  }
  throw new Error("the KEV import never finished");
}

describe("SERVER_ROLE", () => {
  it("all (the default) serves the site and imports on its schedule", async () => {
    const database = await databases.create("all.sqlite");
    const server = await start("all", database);
    expect((await fetch(`${server.url}/`)).status).toBe(200);
    expect(await kevImported(database)).toMatch(/^\d{4}-/);
    const sources = (await (await fetch(`${server.url}/api/v1/sources`)).json()) as { sources: Array<{ name: string }> };
    expect(JSON.stringify(sources)).toContain("cisa-kev");
  });

  it("web serves the site and runs no import schedule", async () => {
    const server = await start("web", await databases.create("web.sqlite"));
    expect((await fetch(`${server.url}/`)).status).toBe(200);
    expect((await fetch(`${server.url}/api/v1/cves`)).status).toBe(200);
    expect(server.output()).toContain("no import schedule here: SERVER_ROLE=web");
    expect(server.output()).not.toContain("sync scheduler started");
  });

  it("worker imports on its schedule and answers only /healthz and /readyz", async () => {
    const database = await databases.create("worker.sqlite");
    const server = await start("worker", database);
    expect(await kevImported(database)).toMatch(/^\d{4}-/);
    const ready = await fetch(`${server.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ status: "ready", database: "ok" });
    for (const path of ["/", "/cve-radar", "/api/v1/cves", "/api/v1/sources", "/metrics", "/_app/builds/latest.json"]) {
      const response = await fetch(`${server.url}${path}`);
      expect(response.status, path).toBe(404);
      expect(await response.json()).toMatchObject({ error: { statusCode: 404 } });
    }
  });

  it("rejects an unknown role by name", async () => {
    const server = startServerProcess({ PORT: "3000", ...(await databases.env("bad.sqlite")), SERVER_ROLE: "reader" });
    expect(await server.exited).toBe(1);
    expect(server.output()).toMatch(/^\s*SERVER_ROLE: /m);
  });
});
