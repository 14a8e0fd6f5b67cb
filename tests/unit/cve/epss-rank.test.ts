import { describe, expect, it } from "vitest";
import { describeEpssRank } from "../../../shared/pages/cve-detail/epss-rank";

describe("an EPSS score's rank among all scored CVEs (FIRST's percentile: the share scoring the same or lower)", () => {
  it("names the share at or below it and the share above it", () => {
    expect(describeEpssRank(0.94321)).toBe("as high as or higher than 94.321% of all scored CVEs (5.679% score higher)");
  });

  it("at the top, says that none scores higher rather than 'top 0%'", () => {
    expect(describeEpssRank(1)).toBe("as high as or higher than 100.00% of all scored CVEs (none scores higher)");
  });

  it("never says that a share too small to show scores higher is 0%", () => {
    expect(describeEpssRank(0.999998)).toBe("as high as or higher than 100.00% of all scored CVEs (under 0.001% score higher)");
  });
});
