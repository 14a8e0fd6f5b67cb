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
});
