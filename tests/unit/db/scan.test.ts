import { describe, expect, it } from "vitest";
import { chooseScan } from "../../../server/db/scan";

describe("chooseScan", () => {
  const universe = 300_000;

  it("walks the sort index when matches are dense", () => {
    expect(chooseScan({ matches: universe, universe, pageEnd: 25 })).toBe("walk");
    expect(chooseScan({ matches: 55_000, universe, pageEnd: 500 })).toBe("walk");
  });

  it("gathers when matches are few, or the page is deep enough that the walk would cross most of the index", () => {
    expect(chooseScan({ matches: 595, universe, pageEnd: 25 })).toBe("gather");
    expect(chooseScan({ matches: 55_000, universe, pageEnd: 10_000 })).toBe("gather");
    expect(chooseScan({ matches: 0, universe, pageEnd: 25 })).toBe("gather");
  });

  it("walks at a lower density when a walk's step only probes a related table (CWE, affected products)", () => {
    // CWE-79 on the full import: 15,371 of 361,109 CVEs, page 20 of 25 rows.
    const cwe = { matches: 15_371, universe: 361_109, pageEnd: 500 };
    expect(chooseScan(cwe)).toBe("gather");
    expect(chooseScan({ ...cwe, probing: true })).toBe("walk");
    expect(chooseScan({ matches: 20, universe: 361_109, pageEnd: 25, probing: true })).toBe("gather");
  });
});
