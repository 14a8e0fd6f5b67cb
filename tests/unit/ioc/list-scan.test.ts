import { describe, expect, it } from "vitest";
import { chooseScan } from "../../../server/db/scan";
import { probesSource, valueIndexHoldsFilter, type FilterContext } from "../../../server/ioc/filters";
import { listScan, walkUniverseView } from "../../../server/ioc/service";
import { sqliteDialect } from "../../../server/db/dialect/sqlite";

const context: FilterContext = { dialect: sqliteDialect, families: [], threatTypes: [], malwareKeys: [], tagFamilies: [] };
// domain=no-ip.biz on the full snapshot import: few matches for the table, so chooseScan would walk.
const counts = { matches: 13_658, universe: 1_672_198, pageEnd: 25 };

describe("how the IOC list reads its page", () => {
  it("gathers one host's or one domain's indicators, in any order, instead of walking the sort index past all the others", () => {
    expect(chooseScan(counts)).toBe("walk");
    for (const filter of [{ domain: "no-ip.biz" }, { host: "github.com" }]) {
      for (const order of [{}, { sort: "value" as const, dir: "asc" as const }, { sort: "first_seen" as const }]) {
        expect(listScan({ ...filter, ...order }, context, counts)).toBe("gather");
      }
    }
  });

  it("leaves other filters to chooseScan", () => {
    expect(listScan({ tag: "phishing", sort: "value" }, context, counts)).toBe(chooseScan(counts));
    expect(listScan({}, context, { matches: 1_672_198, universe: 1_672_198, pageEnd: 25 })).toBe("walk");
  });

  it("weighs a walk in the last-seen order with a 'seen within' window against that window only: the walk stays inside its range of the index", () => {
    expect(walkUniverseView({ tag: "phishing", seen: "30d" })).toEqual({ seen: "30d" });
    expect(walkUniverseView({ tag: "phishing", seen: "30d", sort: "last_seen", dir: "asc" })).toEqual({ seen: "30d" });
    expect(walkUniverseView({ tag: "phishing", seen: "30d", sort: "confidence" })).toEqual({});
    expect(walkUniverseView({ tag: "phishing" })).toEqual({});
  });

  it("weighs a walk in the type order with a type filter against those types only", () => {
    expect(walkUniverseView({ type: ["url"], sort: "type", dir: "asc" })).toEqual({ type: ["url"] });
    expect(walkUniverseView({ type: ["url", "sha256"], tag: "phishing", sort: "type" })).toEqual({ type: ["url", "sha256"] });
    expect(walkUniverseView({ type: ["url"], sort: "confidence" })).toEqual({});
  });

  it("counts a walk of the value index under a type filter alone as reading no row: the index holds the type", () => {
    expect(valueIndexHoldsFilter({ type: ["url"], sort: "value" })).toBe(true);
    expect(valueIndexHoldsFilter({ type: ["url"], sort: "value", tag: "phishing" })).toBe(false);
    expect(valueIndexHoldsFilter({ type: ["url"], sort: "confidence" })).toBe(false);
    expect(valueIndexHoldsFilter({ sort: "value" })).toBe(false);
  });
});

describe("how a source filter is tested along a filter's own index", () => {
  // On the full snapshot import: maltrail has 1,420,594 indicators, 1,153,993 of the 1,237,067 domains.
  it("probes each row when the walk to the page's end is shorter than the source's list", () => {
    expect(probesSource({ matches: 1_153_993, alongIndex: 1_237_067, sourceSize: 1_420_594, pageEnd: 25 })).toBe(true);
  });

  it("lists the source's indicators when they are few beside the rows the walk would step over", () => {
    // feodotracker: 28 indicators, all IPv4 addresses, among about 100,000.
    expect(probesSource({ matches: 28, alongIndex: 100_000, sourceSize: 28, pageEnd: 25 })).toBe(false);
    expect(probesSource({ matches: 0, alongIndex: 100_000, sourceSize: 500, pageEnd: 25 })).toBe(false);
  });

  it("weighs deeper pages by their end", () => {
    const view = { matches: 10_000, alongIndex: 100_000, sourceSize: 300_000 };
    expect(probesSource({ ...view, pageEnd: 25 })).toBe(true);
    expect(probesSource({ ...view, pageEnd: 50_000 })).toBe(false);
  });
});
