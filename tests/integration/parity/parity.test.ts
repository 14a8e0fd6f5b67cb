import request from "supertest";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { SNAPSHOT_NOW } from "../setup/snapshot-database";
import { createTestApp, type TestApp } from "../../helpers/test-app";

/**
 * The same snapshot subset imported into SQLite and into PostgreSQL (the two
 * global setups) must answer every read the same: each list with each filter,
 * each sort both ways and pages, details, statistics, suggestions, exports.
 * Only what differs by nature is masked: import timings, and the ids of
 * generated documents that are random per response.
 */
let sqlite: TestApp;
let postgres: TestApp;
const now = () => new Date(SNAPSHOT_NOW);

beforeAll(async () => {
  const databasePath = inject("snapshotDatabase");
  sqlite = await createTestApp({ adapter: "sqlite", databasePath, now });
  postgres = await createTestApp({ adapter: "postgres", databasePath, now });
});
afterAll(async () => {
  await Promise.all([sqlite?.close(), postgres?.close()]);
});

/** Import bookkeeping that differs by run, not by data: durations and the times the runs happened. */
const RUN_FIELDS = /"(durationMs|duration_ms|lastRunAt|last_run_at|lastSuccessAt|last_success_at)":("[^"]*"|\d+|null)/g;

/**
 * Indicator ids are keys each database hands out: PostgreSQL's identity skips the numbers an insert
 * that met a conflict drew, SQLite's rowid does not. Both follow insertion order, so ties still sort alike.
 */
const INDICATOR_ID = /"id":\d+,"type"/g;

function masked(text: string): string {
  return (
    text
      .replace(RUN_FIELDS, '"$1":"masked"')
      .replace(INDICATOR_ID, '"id":"masked","type"')
      // supertest serves each request on a port of its own, and feeds link to the host they were asked on.
      .replace(/http:\/\/127\.0\.0\.1:\d+/g, "http://127.0.0.1")
      .replace(/"id":\s*"bundle--[0-9a-f-]+"/g, '"id":"bundle--masked"')
  );
}

interface Difference {
  url: string;
  sqlite: string;
  postgres: string;
}

async function answer(app: TestApp, url: string): Promise<string> {
  const res = await request(app.app)
    .get(url)
    .buffer(true)
    .parse((r, done) => {
      let text = "";
      r.on("data", (chunk: Buffer) => (text += chunk.toString()));
      r.on("end", () => done(null, text));
    });
  return `${res.status} ${res.headers["content-type"] ?? ""}\n${masked(res.body as string)}`;
}

/** First position where two answers part, with some context: the whole answers can be megabytes. */
function excerpt(a: string, b: string): [string, string] {
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  const from = Math.max(0, i - 120);
  return [a.slice(from, i + 200), b.slice(from, i + 200)];
}

async function compare(urls: readonly string[]): Promise<Difference[]> {
  const differences: Difference[] = [];
  for (const url of urls) {
    const [a, b] = await Promise.all([answer(sqlite, url), answer(postgres, url)]);
    if (a !== b) {
      const [left, right] = excerpt(a, b);
      differences.push({ url, sqlite: left, postgres: right });
    }
  }
  return differences;
}

let compared = 0;
async function expectSame(urls: readonly string[]): Promise<void> {
  compared += urls.length;
  expect(await compare(urls)).toEqual([]);
}

const CVE_SORTS = ["priority", "published", "updated", "cvss", "epss", "exploits", "kev_added", "kev_due"];
const IOC_SORTS = ["last_seen", "first_seen", "confidence", "sources", "value", "type"];
const IOC_TYPES = ["ipv4", "ipv6", "cidr", "domain", "url", "email", "md5", "sha1", "sha256", "sha512", "ip:port"];

async function json<T>(url: string): Promise<T> {
  return (await request(sqlite.app).get(url).expect(200)).body as T;
}

describe("SQLite and PostgreSQL answer alike", () => {
  it("CVE lists: every sort both ways, pages and filters", async () => {
    const urls: string[] = [];
    for (const sort of CVE_SORTS)
      for (const dir of ["desc", "asc"]) for (const page of [1, 4]) urls.push(`/api/v1/cves?sort=${sort}&dir=${dir}&page=${page}&per_page=50`);
    const stats = await json<{ topVendors?: Array<{ vendor: string }> }>("/api/v1/cves/stats");
    const vendors = (stats.topVendors ?? []).slice(0, 3).map((v) => v.vendor);
    const filters = [
      "severity=critical",
      "severity=high,medium",
      "severity=none",
      "kev=1",
      "exploit=1",
      "kev=1&exploit=1",
      "cvss_min=9",
      "cvss_max=3",
      "epss_min=0.5",
      "epss_max=0.01",
      "cwe=CWE-79",
      "published_from=2024-06-01&published_to=2024-12-31",
      "updated_from=2025-01-01",
      "state=rejected",
      "state=all",
      "q=remote%20code",
      "q=pan-os",
      "q=CVE-2024-3",
      "q=sql%20inj",
      "q=cross%20site%20script",
      "vendor=Ivanti",
      "vendor=microsoft&product=windows",
      ...vendors.map((v) => `vendor=${encodeURIComponent(v)}`),
    ];
    for (const filter of filters)
      for (const sort of ["priority", "published"]) for (const dir of ["desc", "asc"]) urls.push(`/api/v1/cves?${filter}&sort=${sort}&dir=${dir}`);
    await expectSame(urls);
  });

  it("CVE details, statistics, suggestions and exports", async () => {
    const ids = new Set<string>();
    for (const url of [
      "/api/v1/cves?per_page=100",
      "/api/v1/cves?kev=1&per_page=50",
      "/api/v1/cves?exploit=1&per_page=50",
      "/api/v1/cves?state=rejected&per_page=10",
      "/api/v1/cves?sort=published&dir=asc&per_page=20",
    ]) {
      for (const row of (await json<{ rows: Array<{ id: string }> }>(url)).rows) ids.add(row.id);
    }
    const urls = [...ids].map((id) => `/api/v1/cves/${id}`);
    urls.push("/api/v1/cves/CVE-1999-0001", "/api/v1/cves/CVE-2099-99999");
    for (const filter of ["", "kev=1", "severity=critical", "q=remote", "vendor=Ivanti", "state=all"]) {
      urls.push(`/api/v1/cves/stats?${filter}`, `/api/v1/cves/export.csv?${filter}`, `/api/v1/cves/export.json?${filter}`, `/api/v1/cves/feed.atom?${filter}`);
    }
    for (const q of ["mi", "cis", "apa", "fort", "CVE-2024-3", "wind", "zz"]) urls.push(`/api/v1/suggest?q=${q}`);
    await expectSame(urls);
  });

  it("IOC lists: every sort both ways, pages and filters", async () => {
    const urls: string[] = [];
    for (const sort of IOC_SORTS)
      for (const dir of ["desc", "asc"]) for (const page of [1, 5]) urls.push(`/api/v1/iocs?sort=${sort}&dir=${dir}&page=${page}&per_page=50`);
    const stats = await json<{ topFamilies?: Array<{ family: string }> }>("/api/v1/iocs/stats");
    const families = (stats.topFamilies ?? []).slice(0, 3).map((f) => f.family);
    const sources = await json<Array<{ name: string }> | { sources: Array<{ name: string }> }>("/api/v1/sources");
    const sourceNames = (Array.isArray(sources) ? sources : sources.sources).map((s) => s.name);
    const filters = [
      ...IOC_TYPES.map((type) => `type=${encodeURIComponent(type)}`),
      "type=url,domain",
      "seen=24h",
      "seen=7d",
      "seen=30d",
      "seen=90d",
      "q=bazaar",
      "q=.ru",
      "q=http",
      "q=cobalt",
      "q=192.168",
      "threat_type=botnet_cc",
      "threat_type=payload",
      ...families.map((f) => `malware=${encodeURIComponent(f)}`),
      ...sourceNames.map((s) => `source=${s}`),
    ];
    for (const filter of filters)
      for (const sort of ["last_seen", "value"]) for (const dir of ["desc", "asc"]) urls.push(`/api/v1/iocs?${filter}&sort=${sort}&dir=${dir}`);
    await expectSame(urls);
  });

  it("IOC details of each type, statistics, sources and exports", async () => {
    const urls: string[] = [];
    for (const type of IOC_TYPES) {
      const { rows } = await json<{ rows: Array<{ value: string }> }>(`/api/v1/iocs?type=${encodeURIComponent(type)}&per_page=5`);
      for (const row of rows) urls.push(`/api/v1/iocs/${encodeURIComponent(row.value)}`);
      urls.push(`/api/v1/iocs/blocklist.txt?type=${encodeURIComponent(type)}`);
    }
    for (const filter of ["", "type=url", "seen=30d", "q=cobalt"]) {
      urls.push(
        `/api/v1/iocs/stats?${filter}`,
        `/api/v1/iocs/export.csv?${filter}`,
        `/api/v1/iocs/export.json?${filter}`,
        `/api/v1/iocs/export.stix.json?${filter}`,
        `/api/v1/iocs/feed.atom?${filter}`,
      );
    }
    urls.push("/api/v1/sources");
    await expectSame(urls);
  });

  afterAll(() => {
    console.log(`parity: ${compared} responses compared`);
  });
});
