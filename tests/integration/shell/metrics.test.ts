import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../../helpers/test-app";

/** The value of one sample line, e.g. `name{a="b"} 3`, or null when absent. */
function sample(text: string, line: string): number | null {
  const found = text.split("\n").find((row) => row.startsWith(`${line} `));
  return found ? Number(found.slice(line.length + 1)) : null;
}

describe("GET /metrics", () => {
  let t: TestApp;
  const TOKEN = "metrics-token-0123456789";

  beforeAll(async () => {
    t = await createTestApp({ env: { METRICS_TOKEN: TOKEN, RATE_LIMIT_API_MAX: "3" } });
    await t.database.db
      .insertInto("sources")
      .values({
        name: "cisa-kev",
        status: "failed",
        last_success_at: "2025-01-20T00:00:00.000Z",
        consecutive_failures: 2,
        runs: 5,
        failures: 2,
        record_count: 1404,
        rejected: 1,
        duration_ms: 1500,
      })
      .execute();
  });
  afterAll(async () => t?.close());

  it("answers loopback in the Prometheus text format, with process, event-loop and per-source metrics", async () => {
    const res = await request(t.app).get("/metrics").expect(200);
    expect(res.headers["content-type"]).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(res.headers["cache-control"]).toBe("no-store");
    expect(sample(res.text, "process_resident_memory_bytes")).toBeGreaterThan(0);
    expect(res.text).toContain("# TYPE nodejs_eventloop_lag_seconds gauge");
    expect(sample(res.text, 'threat_radar_source_last_success_timestamp_seconds{source="cisa-kev"}')).toBe(Date.parse("2025-01-20T00:00:00Z") / 1000);
    expect(sample(res.text, 'threat_radar_source_consecutive_failures{source="cisa-kev"}')).toBe(2);
    expect(sample(res.text, 'threat_radar_source_failures{source="cisa-kev"}')).toBe(2);
    expect(sample(res.text, 'threat_radar_source_runs{source="cisa-kev"}')).toBe(5);
    expect(sample(res.text, 'threat_radar_source_records{source="cisa-kev"}')).toBe(1404);
    expect(sample(res.text, 'threat_radar_source_rejected_records{source="cisa-kev"}')).toBe(1);
    expect(sample(res.text, 'threat_radar_source_last_duration_seconds{source="cisa-kev"}')).toBe(1.5);
  });

  it("times requests by route pattern and status class, never by raw URL", async () => {
    await request(t.app).get("/api/v1/cves/CVE-2024-99999");
    await request(t.app).get("/cve-radar/CVE-2024-99999");
    await request(t.app).get("/cve-radar/CVE-2024-99999/_payload.json");
    const text = (await request(t.app).get("/metrics").expect(200)).text;
    expect(sample(text, 'http_request_duration_seconds_count{method="GET",route="/api/v1/cves/:id",status="4xx"}')).toBe(1);
    expect(sample(text, 'http_request_duration_seconds_count{method="GET",route="/cve-radar/:cve",status="4xx"}')).toBe(1);
    expect(sample(text, 'http_request_duration_seconds_count{method="GET",route="/cve-radar/:cve/_payload.json",status="4xx"}')).toBe(1);
    expect(text).not.toContain("CVE-2024-99999");
  });

  it("times odd paths ('//', '///', undecodable '%') like any other, without failing", async () => {
    const notFound = (text: string) =>
      text
        .split("\n")
        .filter((row) => row.startsWith('http_request_duration_seconds_count{method="GET"') && row.includes('status="4xx"'))
        .reduce((sum, row) => sum + Number(row.slice(row.lastIndexOf(" ") + 1)), 0);
    const before = notFound((await request(t.app).get("/metrics").expect(200)).text);
    for (const path of ["//", "///", "/%%%"]) await request(t.app).get(path).expect(404);
    expect(notFound((await request(t.app).get("/metrics").expect(200)).text)).toBe(before + 3);
  });

  it("times the database's queries and the server's renders", async () => {
    const before = (await request(t.app).get("/metrics").expect(200)).text;
    const queriesBefore = sample(before, 'threat_radar_db_query_duration_seconds_count{statement="select"}') ?? 0;
    const rendersBefore = sample(before, 'threat_radar_ssr_render_duration_seconds_count{outcome="ok"}') ?? 0;
    await request(t.app).get("/cve-radar?q=timing").expect(200);
    const after = (await request(t.app).get("/metrics").expect(200)).text;
    expect(sample(after, 'threat_radar_db_query_duration_seconds_count{statement="select"}')).toBeGreaterThan(queriesBefore);
    expect(sample(after, 'threat_radar_ssr_render_duration_seconds_count{outcome="ok"}')).toBe(rendersBefore + 1);
  });

  it("counts requests refused by a rate limit (under the API's catch-all pattern: the limit answers before any route matches)", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await request(t.app).get("/api/v1/sources")).status);
    const refused = statuses.filter((status) => status === 429).length;
    expect(refused).toBeGreaterThan(0);
    const text = (await request(t.app).get("/metrics").expect(200)).text;
    expect(sample(text, 'http_requests_rate_limited_total{route="/api/*"}')).toBe(refused);
  });

  it("refuses a request relayed by a proxy the server does not trust, unless it carries the token", async () => {
    const res = await request(t.app).get("/metrics").set("X-Forwarded-For", "198.51.100.7").expect(403);
    expect(res.headers["www-authenticate"]).toContain("Bearer");
    await request(t.app).get("/metrics").set("X-Forwarded-For", "198.51.100.7").set("Authorization", "Bearer wrong-token-0123456789").expect(403);
    await request(t.app).get("/metrics").set("X-Forwarded-For", "198.51.100.7").set("Authorization", `Bearer ${TOKEN}`).expect(200);
  });
});

describe("GET /metrics with METRICS_ALLOW=none", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ env: { METRICS_ALLOW: "none" } });
  });
  afterAll(async () => t?.close());

  it("is closed to every address, loopback included", async () => {
    await request(t.app).get("/metrics").expect(403);
  });
});
