import { describe, expect, it } from "vitest";
import { chooseScan, chooseScanProbed, walkProbeCap } from "../../../server/db/scan";

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
    const asked: number[] = [];
    const scan = await chooseScanProbed(sparse, async (cap) => {
      asked.push(cap);
      return 65;
    });
    expect(scan).toBe("walk");
    expect(asked).toEqual([walkProbeCap(sparse)]);
  });

  it("gathers when the probe's rows hold fewer matches than the page", async () => {
    expect(await chooseScanProbed(sparse, async () => 24)).toBe("gather");
  });

  it("does not probe when the counts already say walk, or when the probe would walk as far as gathering reads", async () => {
    const never = async (): Promise<number> => {
      throw new Error("probed");
    };
    expect(await chooseScanProbed({ matches: 300_000, universe: 300_000, pageEnd: 25 }, never)).toBe("walk");
    expect(walkProbeCap({ matches: 300, universe: 361_109, pageEnd: 25 })).toBeNull();
    expect(await chooseScanProbed({ matches: 300, universe: 361_109, pageEnd: 25 }, never)).toBe("gather");
  });
});
