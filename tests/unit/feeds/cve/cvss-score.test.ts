import { describe, expect, it } from "vitest";
import { baseScoreOf } from "../../../../server/feeds/cve/cvss";

describe("baseScoreOf: the score a vector gives, whatever the record states", () => {
  it.each([
    ["3.1", "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H", 9.8, "CRITICAL"],
    ["3.1", "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N", 7.5, "HIGH"],
    ["3.0", "CVSS:3.0/AV:N/AC:H/PR:N/UI:N/S:C/C:H/I:H/A:H", 9, "CRITICAL"],
    ["2.0", "AV:N/AC:L/Au:N/C:P/I:N/A:N", 5, "MEDIUM"],
    ["2.0", "AV:N/AC:L/Au:N/C:C/I:C/A:C", 10, "HIGH"],
    ["4.0", "CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N", 9.3, "CRITICAL"],
  ] as const)("v%s %s → %s %s", (version, vector, score, severity) => {
    expect(baseScoreOf(version, vector)).toEqual({ score, severity });
  });

  it("gives nothing for a vector that does not define every base metric, or cannot be read", () => {
    expect(baseScoreOf("3.1", "CVSS:3.1/AV:N/AC:L")).toBeNull();
    expect(baseScoreOf("3.1", "not a vector")).toBeNull();
    expect(baseScoreOf("3.1", null)).toBeNull();
  });

  it("answers a vector seen before as the first time, per version, unreadable ones included", () => {
    const vector = "CVSS:3.1/AV:N/AC:L/PR:L/UI:N/S:U/C:H/I:H/A:H";
    for (let i = 0; i < 3; i += 1) {
      expect(baseScoreOf("3.1", vector)).toEqual({ score: 8.8, severity: "HIGH" });
      expect(baseScoreOf("2.0", vector)).toBeNull();
      expect(baseScoreOf("3.1", "CVSS:3.1/AV:N")).toBeNull();
    }
  });
});
