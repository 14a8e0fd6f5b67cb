import request from "supertest";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { SNAPSHOT_NOW } from "../setup/snapshot-database";
import { stixBundleValidator } from "../../helpers/stix-schemas";
import { createTestApp, type TestApp } from "../../helpers/test-app";
import { feodoEntries } from "./source-counts";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ databasePath: inject("snapshotDatabase"), now: () => new Date(SNAPSHOT_NOW) });
});
afterAll(() => t?.close());

function text(path: string) {
  return request(t.app)
    .get(path)
    .buffer(true)
    .parse((r, done) => {
      let body = "";
      r.on("data", (chunk: Buffer) => (body += chunk.toString()));
      r.on("end", () => done(null, body));
    });
}

type StixObject = { type: string; id: string; [key: string]: unknown };

describe("IOC exports", () => {
  it("CSV: one row per indicator of the filtered set", async () => {
    const res = await text("/api/v1/iocs/export.csv?source=feodotracker").expect(200);
    expect(res.headers["content-type"]).toContain("text/csv");
    expect(res.headers["content-disposition"]).toContain("iocs.csv");
    const lines = (res.body as string).trim().split("\r\n");
    expect(lines[0]).toBe("value,type,threat_type,malware_family,tags,sources,first_seen,last_seen,confidence,score,verdict,benign_lists");
    expect(lines).toHaveLength(29);
    expect(
      lines
        .slice(1)
        .map((line) => line.split(",")[0])
        .sort(),
    ).toEqual(
      feodoEntries()
        .map((e) => e.ip)
        .sort(),
    );
  });

  it("JSON: the list's rows in its order", async () => {
    const list = (await request(t.app).get("/api/v1/iocs?source=malwarebazaar&per_page=100").expect(200)).body;
    const res = await text("/api/v1/iocs/export.json?source=malwarebazaar").expect(200);
    const body = JSON.parse(res.body as string);
    expect(body.iocs).toHaveLength(507);
    expect(body.iocs.slice(0, 100)).toEqual(list.rows);
  });

  it("STIX 2.1: a bundle of the filtered set valid against the official schemas", async () => {
    const res = await text("/api/v1/iocs/export.stix.json?source=feodotracker").expect(200);
    expect(res.headers["content-type"]).toContain("application/stix+json");
    const bundle = JSON.parse(res.body as string) as { type: string; id: string; objects: StixObject[] };
    const validate = stixBundleValidator();
    expect(validate(bundle), JSON.stringify(validate.errors?.slice(0, 5))).toBe(true);
    const byType = (type: string) => bundle.objects.filter((o) => o.type === type);
    expect(byType("indicator")).toHaveLength(28);
    expect(byType("indicator").every((o) => o.pattern_type === "stix" && /^\[ipv4-addr:value = '[\d.]+'\]$/.test(String(o.pattern)))).toBe(true);
    expect(byType("malware").map((o) => o.name)).toContain("Pikabot");
    expect(byType("relationship").length).toBe(28);
    expect(byType("sighting").length).toBeGreaterThanOrEqual(28 + 27);
    expect(
      byType("identity")
        .map((o) => o.name)
        .sort(),
    ).toEqual(["feodotracker", "tweetfeed"]);
    const ids = bundle.objects.map((o) => o.id);
    expect(new Set(ids).size).toBe(ids.length);
    const again = JSON.parse((await text("/api/v1/iocs/export.stix.json?source=feodotracker").expect(200)).body as string);
    expect(again.objects.map((o: StixObject) => o.id)).toEqual(ids);
  });

  it("STIX 2.1: hashes, URLs and domains validate too", async () => {
    const validate = stixBundleValidator();
    for (const query of [
      "source=malwarebazaar",
      "source=tweetfeed&type=url,domain&q=triapfog",
      "source=tweetfeed&type=sha256&q=0000",
      "source=signature-base&type=domain,sha1&q=upd",
    ]) {
      const bundle = JSON.parse((await text(`/api/v1/iocs/export.stix.json?${query}`).expect(200)).body as string);
      expect(bundle.objects.length, query).toBeGreaterThan(0);
      expect(validate(bundle), `${query}: ${JSON.stringify(validate.errors?.slice(0, 5))}`).toBe(true);
    }
  });

  it("blocklists: one value per line for one type, without benign-listed values", async () => {
    const rows = (await request(t.app).get("/api/v1/iocs?source=feodotracker&per_page=100").expect(200)).body.rows as Array<{
      value: string;
      benignLists: string[];
    }>;
    const res = await text("/api/v1/iocs/blocklist.txt?type=ipv4&source=feodotracker").expect(200);
    expect(res.headers["content-type"]).toContain("text/plain");
    const lines = (res.body as string).trim().split("\n");
    expect(lines.sort()).toEqual(
      rows
        .filter((r) => r.benignLists.length === 0)
        .map((r) => r.value)
        .sort(),
    );
    const md5 = (await text("/api/v1/iocs/blocklist.txt?type=md5&source=malwarebazaar").expect(200)).body as string;
    expect(
      md5
        .trim()
        .split("\n")
        .every((line) => /^[0-9a-f]{32}$/.test(line)),
    ).toBe(true);
    const missing = await request(t.app).get("/api/v1/iocs/blocklist.txt?source=feodotracker").expect(400);
    expect(missing.body.error.problems[0].param).toBe("type");
    await request(t.app).get("/api/v1/iocs/blocklist.txt?type=ipv4&sort=value").expect(400);
  });

  it("Atom feed of a filtered list, values defanged and escaped", async () => {
    const res = await request(t.app).get("/api/v1/iocs/feed.atom?source=feodotracker").expect(200);
    expect(res.headers["content-type"]).toContain("application/atom+xml");
    expect(res.text).toContain('<feed xmlns="http://www.w3.org/2005/Atom">');
    expect(res.text.match(/<entry>/g)).toHaveLength(28);
    expect(res.text).toContain(feodoEntries()[0]!.ip.replaceAll(".", "[.]"));
  });

  it("every export validates its parameters", async () => {
    for (const path of ["export.csv", "export.json", "export.stix.json", "feed.atom"]) {
      const { body } = await request(t.app).get(`/api/v1/iocs/${path}?seen=2d`).expect(400);
      expect(body.error.problems[0].param).toBe("seen");
    }
  });

  it("the OpenAPI document describes the IOC endpoints", async () => {
    const { body } = await request(t.app).get("/api/v1/openapi.json").expect(200);
    for (const path of [
      "/iocs",
      "/iocs/stats",
      "/iocs/lookup",
      "/iocs/{value}",
      "/iocs/export.csv",
      "/iocs/export.json",
      "/iocs/export.stix.json",
      "/iocs/blocklist.txt",
      "/iocs/feed.atom",
    ]) {
      expect(Object.keys(body.paths)).toContain(path);
    }
  });
});
