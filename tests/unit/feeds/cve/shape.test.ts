import { describe, expect, it } from "vitest";
import { asUtcTimestamp } from "../../../../server/feeds/cve/shape";

describe("asUtcTimestamp", () => {
  it.each([
    ["2025-01-17T00:00:00", "2025-01-17T00:00:00.000Z"],
    ["2024-04-12T08:15:06.230", "2024-04-12T08:15:06.230Z"],
    ["2024-04-12T17:00:00.000Z", "2024-04-12T17:00:00.000Z"],
    ["2024-01-02T00:00:00Z", "2024-01-02T00:00:00.000Z"],
    ["2024-04-12T19:00:00+02:00", "2024-04-12T17:00:00.000Z"],
    ["2024-04-12", "2024-04-12T00:00:00.000Z"],
  ])("%s → %s (zone-less times are UTC, as the CVE and NVD formats say)", (raw, expected) => {
    expect(asUtcTimestamp(raw)).toBe(expected);
  });

  it.each([[""], ["yesterday"], [42], [null]])("%s is no timestamp", (raw) => {
    expect(asUtcTimestamp(raw)).toBeNull();
  });
});
