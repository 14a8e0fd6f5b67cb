import { mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadWarninglists, parseWarninglist } from "../../../server/feeds/warninglists/parse";
import { snapshot } from "./paths";

describe("MISP warninglist files", () => {
  it("loads all 41 real lists with their types and sizes", async () => {
    const { lists, rejected } = await loadWarninglists(snapshot("misp-warninglists", "lists"));
    expect(rejected).toEqual([]);
    expect(lists).toHaveLength(41);
    const byName = new Map(lists.map((list) => [list.name, list]));
    // Sizes as listed in PROVENANCE.md (python: len(json.load(f)["list"])).
    expect(byName.get("public-dns-v4")).toMatchObject({ type: "cidr", version: 20240615 });
    expect(byName.get("public-dns-v4")?.entries).toHaveLength(62_745);
    expect(byName.get("vpn-ipv4")?.entries).toHaveLength(42_426);
    expect(byName.get("tranco10k")).toMatchObject({ type: "hostname" });
    expect(byName.get("rfc1918")).toMatchObject({
      type: "cidr",
      entries: ["10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16"],
      matchingAttributes: ["ip-src", "ip-dst", "domain|ip", "ip-dst|port", "ip-src|port"],
    });
    expect(lists.reduce((sum, list) => sum + list.entries.length, 0)).toBe(269_049);
  });

  it("accepts entries with comments and string versions, and names what is wrong", () => {
    expect(
      parseWarninglist({ name: "x", description: "d", version: "3", type: "string", list: { "a.example.com": "why", "": "" } }, "x", "x/list.json"),
    ).toMatchObject({ ok: true, record: { name: "x", title: "x", version: 3, entries: ["a.example.com"], matchingAttributes: [] } });
    expect(parseWarninglist({ name: "x", description: "d", version: 1, type: "glob", list: [] }, "bad", "bad/list.json")).toMatchObject({
      ok: false,
      location: "bad/list.json",
      reason: expect.stringMatching(/^warninglist bad: type/),
    });
  });

  it("reports a broken list and still loads the others", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "warninglists-"));
    await mkdir(path.join(dir, "good"));
    await mkdir(path.join(dir, "broken"));
    await writeFile(path.join(dir, "good", "list.json"), JSON.stringify({ name: "Good", description: "", version: 1, type: "cidr", list: ["10.0.0.0/8"] }));
    await writeFile(path.join(dir, "broken", "list.json"), "{ not json");
    const { lists, rejected } = await loadWarninglists(dir);
    expect(lists.map((list) => list.name)).toEqual(["good"]);
    expect(rejected).toEqual([{ location: path.join(dir, "broken", "list.json"), reason: expect.stringMatching(/JSON/) }]);
  });
});
