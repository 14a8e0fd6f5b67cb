import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, request as httpRequest, type Server } from "node:http";
import { connect, type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serverDatabases } from "../../helpers/test-database";
import { PROJECT_ROOT } from "../../helpers/paths";
import { snapshot, startFeedServer, type FeedServer } from "../../helpers/feed-server";

const KEV_PATH = "/sites/default/files/feeds/known_exploited_vulnerabilities.json";

/**
 * A forward proxy on loopback, as a corporate egress proxy would be: it tunnels
 * CONNECT requests and relays absolute-URL requests, and logs each one.
 */
function startProxy(): Promise<{ server: Server; url: string; relayed: string[] }> {
  const relayed: string[] = [];
  const server = createServer((req, res) => {
    relayed.push(`${req.method} ${req.url}`);
    const target = new URL(req.url ?? "");
    const upstream = httpRequest(target, { method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on("error", () => res.destroy());
    req.pipe(upstream);
  });
  server.on("connect", (req, client, head) => {
    relayed.push(`CONNECT ${req.url}`);
    const [host = "", port = ""] = (req.url ?? "").split(":");
    const upstream = connect(Number(port), host, () => {
      client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on("error", () => client.destroy());
    client.on("error", () => upstream.destroy());
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () => resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, relayed })),
  );
}

/** Runs `npm run sync -- --source cisa-kev` in a process of its own, with only the variables given. */
function syncKev(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, ["--import", "tsx", "server/cli/sync.ts", "--source", "cisa-kev"], {
    cwd: PROJECT_ROOT,
    env: { PATH: process.env.PATH ?? "", LOG_LEVEL: "info", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((resolve) => child.on("exit", (code) => resolve({ code, output })));
}

const dir = mkdtempSync(join(tmpdir(), "threat-radar-egress-"));
let feeds: FeedServer;
let proxy: Awaited<ReturnType<typeof startProxy>>;

beforeAll(async () => {
  feeds = await startFeedServer({ [KEV_PATH]: snapshot("cisa-kev", "known_exploited_vulnerabilities.json") });
  proxy = await startProxy();
});

const databases = serverDatabases(dir);

afterAll(async () => {
  await databases.dropAll();
  await feeds?.close();
  await new Promise((resolve) => proxy?.server.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

describe("feed downloads through an egress proxy", () => {
  it("go through HTTP_PROXY when it is set", async () => {
    const run = await syncKev({ ...(await databases.env("proxied.sqlite")), SOURCE_CISA_KEV_URL: feeds.url(KEV_PATH), HTTP_PROXY: proxy.url });
    expect(run.code, run.output).toBe(0);
    const feedHost = new URL(feeds.origin).host;
    expect(proxy.relayed.some((line) => line === `CONNECT ${feedHost}` || line === `GET ${feeds.url(KEV_PATH)}`)).toBe(true);
    expect(feeds.requests.length).toBeGreaterThan(0);
  });

  it("bypass the proxy for hosts in NO_PROXY", async () => {
    const before = proxy.relayed.length;
    const requestsBefore = feeds.requests.length;
    const run = await syncKev({
      ...(await databases.env("direct.sqlite")),
      SOURCE_CISA_KEV_URL: feeds.url(KEV_PATH),
      HTTP_PROXY: proxy.url,
      NO_PROXY: "127.0.0.1",
    });
    expect(run.code, run.output).toBe(0);
    expect(feeds.requests.length).toBeGreaterThan(requestsBefore);
    expect(proxy.relayed.length).toBe(before);
  });

  it("fail with a hint that names a proxy that is down, and never its credentials", async () => {
    const down = createServer();
    await new Promise<void>((resolve) => down.listen(0, "127.0.0.1", resolve));
    const port = (down.address() as AddressInfo).port;
    await new Promise((resolve) => down.close(resolve));
    const run = await syncKev({
      ...(await databases.env("proxy-down.sqlite")),
      SOURCE_CISA_KEV_URL: feeds.url(KEV_PATH),
      HTTP_PROXY: `http://operator:s3cret@127.0.0.1:${port}`,
    });
    expect(run.code, run.output).toBe(1);
    expect(run.output).toContain(`cisa-kev: The proxy in HTTP_PROXY (127.0.0.1:${port}) cannot be reached (ECONNREFUSED)`);
    expect(run.output).not.toContain("s3cret");
  });
});
