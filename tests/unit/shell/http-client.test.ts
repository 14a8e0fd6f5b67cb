import { createServer } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHttpClient, RETRY_STATUS_CODES } from "../../../shared/http/http-client";
import { startCountingServer, type CountingServer } from "../../helpers/counting-server";

let server: CountingServer;
beforeAll(async () => {
  server = await startCountingServer();
});
afterAll(() => server.close());

describe("HTTP client", () => {
  it("uses the base URL and reads JSON", async () => {
    const http = createHttpClient(server.url);
    await expect(http("/status/200")).resolves.toEqual({ status: 200, method: "GET" });
  });

  it.each(RETRY_STATUS_CODES)("retries a GET once on %i, then fails naming method, URL and status", async (status) => {
    const http = createHttpClient(server.url);
    const path = `/status/${status}`;
    const before = server.hits(path);
    const error = await http(path).catch((e: Error) => e);
    expect(server.hits(path) - before).toBe(2);
    expect(String(error)).toContain("[GET]");
    expect(String(error)).toContain(`${server.url}${path}`);
    expect(String(error)).toContain(String(status));
  });

  it("does not retry a GET on other failures such as 404 or 501", async () => {
    const http = createHttpClient(server.url);
    for (const status of [400, 404, 501]) {
      const path = `/status/${status}`;
      await expect(http(path)).rejects.toThrow(String(status));
      expect(server.hits(path)).toBe(1);
    }
  });

  it.each(["POST", "PUT", "PATCH", "DELETE"])("never retries %s", async (method) => {
    const http = createHttpClient(server.url);
    const path = "/status/503";
    const before = server.hits(path);
    await expect(http(path, { method, body: method === "DELETE" ? undefined : { a: 1 } })).rejects.toThrow(`[${method}]`);
    expect(server.hits(path) - before).toBe(1);
  });

  it("says there was no response when nothing answers", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const { port } = closed.address() as { port: number };
    await new Promise((resolve) => closed.close(resolve));
    const http = createHttpClient(`http://127.0.0.1:${port}`);
    await expect(http("/anything")).rejects.toThrow("<no response>");
  });
});
