import { describe, expect, it } from "vitest";
import { narrowsByRelatedRowsOnly } from "../../../server/cve/filters";

describe("narrowsByRelatedRowsOnly", () => {
  it("holds for filters on a CVE's CWEs or affected products alone, whatever the state", () => {
    expect(narrowsByRelatedRowsOnly({ cwe: "CWE-79" })).toBe(true);
    expect(narrowsByRelatedRowsOnly({ vendor: "microsoft", product: "windows", state: "all" })).toBe(true);
  });

  it("fails without such a filter, or beside one on the CVE's own columns", () => {
    expect(narrowsByRelatedRowsOnly({})).toBe(false);
    expect(narrowsByRelatedRowsOnly({ cwe: "CWE-79", kev: true })).toBe(false);
    expect(narrowsByRelatedRowsOnly({ vendor: "microsoft", epss_min: 0 })).toBe(false);
    expect(narrowsByRelatedRowsOnly({ cwe: "CWE-79", severity: ["critical"] })).toBe(false);
    expect(narrowsByRelatedRowsOnly({ vendor: "microsoft", published_to: "2024-03-31" })).toBe(false);
  });
});
