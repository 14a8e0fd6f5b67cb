import { describe, expect, it } from "vitest";
import { chooseScan, chooseScanProbed, walkCheckCap, walkProbeCap } from "../../../server/db/scan";

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

describe("chooseScanProbed", () => {
  // Critical + exploited CVEs by EPSS on the full import: sparse, but at the front of the EPSS order.
  const sparse = { matches: 2_581, universe: 361_109, pageEnd: 25 };

  it("walks a sparse filter whose page fills within the probe's first rows of the sort order", async () => {
    const asked: Array<[number, number]> = [];
    const scan = await chooseScanProbed(sparse, async (cap, enough) => {
      asked.push([cap, enough]);
      return enough;
    });
    expect(scan).toBe("walk");
    expect(asked).toEqual([[walkProbeCap(sparse), 25]]);
  });

  it("gathers when the probe's rows hold fewer matches than the page", async () => {
    expect(await chooseScanProbed(sparse, async () => 24)).toBe("gather");
  });

  // Critical CVEs by ascending priority on the full import: dense enough to walk, but at the far end of the order.
  const trailing = { matches: 4_950, universe: 361_109, pageEnd: 25 };

  it("checks a walk the counts chose as far as gathering would read, and gathers when the page does not fill there", async () => {
    expect(chooseScan(trailing)).toBe("walk");
    const asked: Array<[number, number]> = [];
    const scan = await chooseScanProbed(trailing, async (cap, enough) => {
      asked.push([cap, enough]);
      return 0;
    });
    expect(scan).toBe("gather");
    expect(asked).toEqual([[9_900, 25]]);
    expect(await chooseScanProbed(trailing, async (_cap, enough) => enough)).toBe("walk");
  });

  it("lets a walk whose step only probes a related table go eight times as far", () => {
    expect(walkCheckCap({ matches: 15_371, universe: 361_109, pageEnd: 500, probing: true })).toBe(245_936);
    expect(walkCheckCap({ matches: 15_371, universe: 361_109, pageEnd: 500 })).toBe(30_742);
  });

  it("does not probe where walking the whole order costs no more than gathering, or the probe would walk as far as gathering reads", async () => {
    const never = async (): Promise<number> => {
      throw new Error("probed");
    };
    expect(await chooseScanProbed({ matches: 300_000, universe: 300_000, pageEnd: 25 }, never)).toBe("walk");
    // 310,477 of 361,109 CVEs without a severity: twice the matches is more than the whole order.
    expect(walkCheckCap({ matches: 310_477, universe: 361_109, pageEnd: 25 })).toBeNull();
    expect(walkProbeCap({ matches: 300, universe: 361_109, pageEnd: 25 })).toBeNull();
    expect(await chooseScanProbed({ matches: 300, universe: 361_109, pageEnd: 25 }, never)).toBe("gather");
  });
});
