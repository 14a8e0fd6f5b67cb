import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../../helpers/test-app";

let t: TestApp;
beforeAll(async () => {
  // A pinned clock, so the page and its payload describe the same moment.
  t = await createTestApp({ now: () => new Date("2026-11-01T00:00:00Z") });
});
afterAll(() => t.close());

describe("build endpoints", () => {
  it("answers latest.json with the build id and no-cache headers", async () => {
    const res = await request(t.app).get(`/_app/builds/latest.json?${Date.now()}`).expect(200);
    expect(res.body).toEqual({ id: t.buildId, timestamp: expect.any(Number) });
    expect(res.headers["cache-control"]).toContain("no-cache");
  });

  it("answers the manifest of the current build with long caching", async () => {
    const res = await request(t.app).get(`/_app/builds/meta/${t.buildId}.json`).expect(200);
    expect(res.body).toMatchObject({
      id: t.buildId,
      timestamp: expect.any(Number),
      routes: ["/", "/cve-radar", "/cve-radar/:cve", "/ioc-radar", "/ioc-radar/:ioc"],
      prerendered: [],
    });
    expect(res.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
  });

  it("answers an unknown build id with a 404 JSON", async () => {
    const res = await request(t.app).get("/_app/builds/meta/nope.json").expect(404);
    expect(res.body.error.statusCode).toBe(404);
  });
});

describe("health", () => {
  it("/healthz says the process is up and /readyz that the database answers", async () => {
    await request(t.app)
      .get("/healthz")
      .expect(200, /"status":"ok"/);
    const ready = await request(t.app).get("/readyz").expect(200);
    expect(ready.body).toMatchObject({ status: "ready", database: "ok" });
  });

  it("/readyz answers 503 when the database is gone", async () => {
    const broken = await createTestApp();
    await broken.reads.close();
    await request(broken.app).get("/readyz").expect(503);
    await broken.close().catch(() => undefined);
  });
});

describe("GET /api/v1/sources, compressed in place", () => {
  it("is gzipped once when the client takes gzip, and the same JSON is sent plain to one that does not", async () => {
    const gzipped = await request(t.app).get("/api/v1/sources").set("Accept-Encoding", "gzip, deflate, br").expect(200);
    expect(gzipped.headers["content-encoding"]).toBe("gzip");
    expect(gzipped.headers["content-type"]).toBe("application/json; charset=utf-8");
    expect(gzipped.headers.vary).toContain("Accept-Encoding");
    expect(gzipped.headers["cache-control"]).toBe("no-store");
    // supertest undoes one gzip: a second layer from the compression middleware would leave bytes, not JSON.
    expect(gzipped.body.sources.length).toBeGreaterThan(0);

    const plain = await request(t.app).get("/api/v1/sources").set("Accept-Encoding", "identity").expect(200);
    expect(plain.headers["content-encoding"]).toBeUndefined();
    expect(plain.body).toEqual(gzipped.body);
  });
});

describe("payloads", () => {
  it("returns a page's loader data, the same the server embedded", async () => {
    const res = await request(t.app).get(`/_payload.json?${t.buildId}`).expect(200);
    expect(res.body.kind).toBe("data");
    const html = (await request(t.app).get("/")).text;
    const hydration = /window\.__staticRouterHydrationData = JSON\.parse\((".*?")\);/.exec(html);
    expect(hydration).not.toBeNull();
    const embedded = JSON.parse(JSON.parse(hydration![1]!)) as { loaderData: Record<string, unknown> };
    expect(embedded.loaderData.home).toEqual(res.body.data);
  });

  it("passes the page query through and ignores the build id", async () => {
    const res = await request(t.app).get(`/cve-radar/_payload.json?${t.buildId}&kev=1&sort=epss`).expect(200);
    expect(res.body.kind).toBe("data");
    expect(res.body.data.params).toEqual({ kev: true, sort: "epss" });
    expect(res.body.data.problems).toEqual([]);
  });

  it("reports redirects and errors as JSON", async () => {
    const redirect = await request(t.app).get(`/cve-radar/cve-2024-3400/_payload.json?${t.buildId}`).expect(200);
    expect(redirect.body).toEqual({ kind: "redirect", location: "/cve-radar/CVE-2024-3400", status: 301 });
    const missing = await request(t.app).get(`/nowhere/_payload.json?${t.buildId}`).expect(404);
    expect(missing.body).toEqual({ kind: "error", error: { statusCode: 404, message: "Page not found: /nowhere" } });
  });

  it("answers unknown API paths with JSON, not the error screen", async () => {
    const res = await request(t.app).get("/api/v1/nothing").expect(404);
    expect(res.body.error.statusCode).toBe(404);
  });
});

describe("rate limits", () => {
  it("answers people with the 429 error screen and API clients with a 429 JSON", async () => {
    const limited = await createTestApp({ env: { RATE_LIMIT_PAGES_MAX: "2", RATE_LIMIT_API_MAX: "1" } });
    try {
      await request(limited.app).get("/").expect(200);
      await request(limited.app).get("/").expect(200);
      const page = await request(limited.app).get("/").expect(429);
      expect(page.text).toContain("Too many requests");
      expect(page.text).toContain("The rate limit for this endpoint was exceeded");
      await request(limited.app).get("/api/v1/x");
      const api = await request(limited.app).get("/api/v1/x").expect(429);
      expect(api.body.error.statusCode).toBe(429);
    } finally {
      await limited.close();
    }
  });
});
