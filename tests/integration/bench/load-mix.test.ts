import request from "supertest";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { buildUrlMix, mixSummary, type MixUrl } from "../../../bench/load/url-mix";
import { createTestApp, type TestApp } from "../../helpers/test-app";

/**
 * `npm run bench:load` drops a URL of its mix that answers a redirect or a
 * 4xx, so a mix that drifts from the routes would quietly measure less. Here
 * the mix is built from the snapshot import and every URL of it is requested.
 */
let t: TestApp;
let mix: MixUrl[];
beforeAll(async () => {
  t = await createTestApp({ databasePath: inject("snapshotDatabase") });
  mix = await buildUrlMix(t.database.db, t.buildId);
});
afterAll(() => t?.close());

describe("bench:load URL mix", () => {
  it("covers every route kind, the details of every indicator type present, and each URL once", async () => {
    const kinds = mixSummary(mix).map((row) => row.kind);
    const types = (await t.database.db.selectFrom("indicators").select("type").distinct().execute()).map((row) => row.type);
    expect(types.length).toBeGreaterThan(3);
    expect(kinds).toEqual(
      expect.arrayContaining([
        "page home",
        "page cve list",
        "page cve details",
        "page ioc list",
        ...types.map((type) => `page ioc details ${type}`),
        "payload home",
        "payload cve list",
        "payload cve details",
        "payload ioc list",
        "payload ioc details",
        "api cve list",
        "api cve stats",
        "api cve details",
        "api ioc list",
        "api ioc stats",
        "api ioc details",
        "api sources",
        "export cve csv",
        "export cve json",
        "export cve atom",
        "export ioc csv",
        "export ioc json",
        "export ioc stix",
        "export ioc blocklist",
        "export ioc atom",
      ]),
    );
    expect(new Set(mix.map((url) => url.path)).size).toBe(mix.length);
    // The snapshot's CVE records lack Log4Shell, but KEV lists it, so its page answers.
    expect(mix.map((url) => url.path)).toContain("/cve-radar/CVE-2021-44228");
    expect(mix.filter((url) => url.kind.startsWith("payload")).every((url) => url.path.includes(`_payload.json?${t.buildId}`))).toBe(true);
  });

  it("every URL answers 2xx, and exports stay within 1,000 rows", async () => {
    const failures: string[] = [];
    for (const url of mix) {
      const res = await request(t.app).get(url.path);
      if (res.status < 200 || res.status > 299) failures.push(`${res.status} ${url.path}`);
      if (url.kind === "export cve json" || url.kind === "export ioc json") {
        const body = JSON.parse(res.text) as { cves?: unknown[]; iocs?: unknown[] };
        const rows = (body.cves ?? body.iocs ?? []).length;
        expect(rows, url.path).toBeGreaterThan(0);
        expect(rows, url.path).toBeLessThanOrEqual(1_000);
      }
    }
    expect(failures).toEqual([]);
  });
});
