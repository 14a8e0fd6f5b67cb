import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { freePort, startServerProcess } from "../../helpers/server-process";
import { serverDatabases } from "../../helpers/test-database";

const dir = mkdtempSync(join(tmpdir(), "threat-radar-start-up-"));
const databases = serverDatabases(dir);
afterAll(async () => {
  await databases.dropAll();
  rmSync(dir, { recursive: true, force: true });
});

describe("start-up of the server process", () => {
  it("exits 1 naming PORT when the port is already taken, never claiming to listen", async () => {
    const port = await freePort();
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(port, "127.0.0.1", resolve));
    try {
      const server = startServerProcess({ PORT: String(port), ...(await databases.env("in-use.sqlite")) });
      expect(await server.exited).toBe(1);
      expect(server.output()).toContain(`PORT=${port}: 127.0.0.1:${port} is already in use`);
      expect(server.output()).not.toContain("listening on");
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });

  it("exits 1 naming HOST when the address is not one of this machine's", async () => {
    // 192.0.2.0/24 is reserved for documentation (RFC 5737): no machine has it.
    const server = startServerProcess({ HOST: "192.0.2.1", PORT: String(await freePort()), ...(await databases.env("no-address.sqlite")) });
    expect(await server.exited).toBe(1);
    expect(server.output()).toContain("HOST=192.0.2.1: this machine has no such address");
    expect(server.output()).not.toContain("listening on");
  });

  it.each([
    ["PORT", ""],
    ["PORT", "0"],
    ["TRUST_PROXY", "yes"],
    ["SERVE_CONCURRENCY", ""],
    ["LOG_FORMAT", "colour"],
    ["SYNC_ENABLED", "maybe"],
  ])("exits 1 on %s=%j with a message naming it and no stack trace", async (name, value) => {
    const server = startServerProcess({ PORT: "3000", ...(await databases.env("config.sqlite")), [name]: value });
    expect(await server.exited).toBe(1);
    expect(server.output()).toMatch(new RegExp(`^\\s*${name}: `, "m"));
    expect(server.output()).not.toMatch(/^\s+at /m);
  });
});
