import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { EnvHttpProxyAgent, fetch } from "undici";
import { afterEach, describe, expect, it } from "vitest";
import { failureDetail } from "../../../server/pipeline/engine/failure";
import { configuredProxies } from "../../../server/runtime/egress";

const servers: Server[] = [];

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

function listen(server: Server): Promise<number> {
  servers.push(server);
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve((server.address() as AddressInfo).port)));
}

/** A loopback port nothing listens on: one a server has just given back. */
async function closedPort(): Promise<number> {
  const server = createServer();
  const port = await listen(server);
  servers.splice(servers.indexOf(server), 1);
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** What undici throws for a request through `proxy` (no retries, as the download would throw after its last). */
async function errorThrough(proxy: string, target = "http://feeds.example.test/kev.json"): Promise<unknown> {
  const dispatcher = new EnvHttpProxyAgent({ httpProxy: proxy, httpsProxy: proxy, noProxy: "" });
  try {
    await fetch(target, { dispatcher });
  } catch (error) {
    return error;
  } finally {
    await dispatcher.close();
  }
  throw new Error("the request did not fail");
}

/** A network error as Node's sockets and resolver shape it. */
function systemError(message: string, fields: Record<string, unknown>): Error {
  return Object.assign(new Error(message), fields);
}

describe("configuredProxies", () => {
  it("reads the variables undici reads, lower case first, and keeps no credentials", () => {
    expect(
      configuredProxies({ HTTPS_PROXY: "http://user:s3cret@proxy.corp:3128", https_proxy: "http://lower.corp:8080", HTTP_PROXY: "https://[::1]" }),
    ).toEqual([
      { variable: "https_proxy", host: "lower.corp", port: 8080 },
      { variable: "HTTP_PROXY", host: "::1", port: 443 },
    ]);
    expect(JSON.stringify(configuredProxies({ HTTPS_PROXY: "http://user:s3cret@proxy.corp:3128" }))).not.toContain("s3cret");
    expect(configuredProxies({ HTTP_PROXY: "http://proxy.corp" })).toEqual([{ variable: "HTTP_PROXY", host: "proxy.corp", port: 80 }]);
    expect(configuredProxies({ HTTPS_PROXY: "not a url" })).toEqual([]);
    expect(configuredProxies({})).toEqual([]);
  });
});

describe("failureDetail", () => {
  it("names the proxy when the connection that failed was the proxy's", async () => {
    const port = await closedPort();
    const error = await errorThrough(`http://user:s3cret@127.0.0.1:${port}`);
    const detail = failureDetail(error, configuredProxies({ HTTP_PROXY: `http://user:s3cret@127.0.0.1:${port}` }));
    expect(detail.causes.at(-1)).toContain(`ECONNREFUSED 127.0.0.1:${port}`);
    expect(detail.hint).toBe(
      `The proxy in HTTP_PROXY (127.0.0.1:${port}) cannot be reached (ECONNREFUSED): check that it runs and that this machine may connect to it. ` +
        "On an air-gapped site set SYNC_MIRROR_DIR (or SOURCE_<NAME>_URL) to files brought in instead.",
    );
    expect(JSON.stringify(detail)).not.toContain("s3cret");
  });

  it("says what a proxy's refusal of the tunnel means", async () => {
    const answers = { 407: "Proxy Authentication Required", 403: "Forbidden", 502: "Bad Gateway" } as const;
    for (const [status, reason] of Object.entries(answers)) {
      const proxy = createServer();
      proxy.on("connect", (_request, socket) => socket.end(`HTTP/1.1 ${status} ${reason}\r\n\r\n`));
      const port = await listen(proxy);
      const error = await errorThrough(`http://127.0.0.1:${port}`, "https://feeds.example.test/kev.json");
      const detail = failureDetail(error, configuredProxies({ HTTPS_PROXY: `http://127.0.0.1:${port}` }));
      expect(detail.hint).toBe(
        `The proxy in HTTPS_PROXY (127.0.0.1:${port}) refused to connect to the publisher (HTTP ${status})` +
          {
            407: ": it asks for credentials (http://user:password@host:port in the variable).",
            403: ": its rules do not let this machine reach the publisher's host.",
            502: ".",
          }[status],
      );
    }
  });

  it("tells a proxy that cannot be resolved or timed out from a publisher that cannot be reached", () => {
    const proxies = configuredProxies({ HTTPS_PROXY: "http://proxy.corp:3128" });
    const lookup = systemError("getaddrinfo ENOTFOUND proxy.corp", { code: "ENOTFOUND", hostname: "proxy.corp" });
    expect(failureDetail(new TypeError("fetch failed", { cause: lookup }), proxies).hint).toBe(
      "The proxy's host name in HTTPS_PROXY (proxy.corp) does not resolve (DNS): check the variable and this machine's resolver.",
    );
    const timeout = systemError("Connect Timeout Error (attempted address: proxy.corp:3128, timeout: 10000ms)", { code: "UND_ERR_CONNECT_TIMEOUT" });
    expect(failureDetail(timeout, proxies).hint).toMatch(/^The proxy in HTTPS_PROXY \(proxy\.corp:3128\) cannot be reached \(UND_ERR_CONNECT_TIMEOUT\)/);
    const v6 = systemError("Connect Timeout Error (attempted address: ::1:3128, timeout: 10000ms)", { code: "UND_ERR_CONNECT_TIMEOUT" });
    expect(failureDetail(v6, configuredProxies({ HTTPS_PROXY: "http://[::1]:3128" })).hint).toMatch(
      /^The proxy in HTTPS_PROXY \(\[::1\]:3128\) cannot be reached/,
    );

    // NO_PROXY sent this one past the proxy: the publisher itself is out of reach.
    const direct = systemError("connect ECONNREFUSED 10.1.2.3:443", { code: "ECONNREFUSED", address: "10.1.2.3", port: 443 });
    expect(failureDetail(direct, proxies).hint).toBe(
      "This machine cannot reach the publisher, or the proxy it goes through (HTTPS_PROXY (proxy.corp:3128); NO_PROXY names the hosts reached without it). " +
        "On an air-gapped site set SYNC_MIRROR_DIR (or SOURCE_<NAME>_URL) to files brought in.",
    );
    const publisherLookup = systemError("getaddrinfo ENOTFOUND www.cisa.gov", { code: "ENOTFOUND", hostname: "www.cisa.gov" });
    expect(failureDetail(publisherLookup, []).hint).toBe(
      "The publisher's host name does not resolve (DNS). This machine cannot reach the publisher. " +
        "On an air-gapped site set SYNC_MIRROR_DIR (or SOURCE_<NAME>_URL) to files brought in; behind a proxy set HTTPS_PROXY.",
    );
  });

  it("keeps every cause, outermost first, and the first hint the chain gives", () => {
    const refused = systemError("connect ECONNREFUSED 127.0.0.1:9", { code: "ECONNREFUSED", address: "127.0.0.1", port: 9 });
    const detail = failureDetail(new Error("download failed", { cause: new TypeError("fetch failed", { cause: refused }) }), []);
    expect(detail.causes).toEqual(["download failed", "fetch failed", "connect ECONNREFUSED 127.0.0.1:9"]);
    expect(detail.hint).toMatch(/^This machine cannot reach the publisher\. /);
    const gone = Object.assign(new Error("[GET] https://example.org/feed.csv: 410 Gone"), { statusCode: 410 });
    expect(failureDetail(gone, []).hint).toBe("The publisher no longer serves this address: check SOURCE_<NAME>_URL.");
    expect(failureDetail("a string", []).causes).toEqual(["a string"]);
  });
});
