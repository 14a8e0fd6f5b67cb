import { describe, expect, it } from "vitest";
import { absenceMeansWithdrawn } from "../../../server/pipeline/run";

const success = (records_read: number, rejected: number) => ({ records_read, rejected, last_success_at: "2026-01-01T00:00:00.000Z" });

describe("absenceMeansWithdrawn: whether what a complete list no longer delivers was withdrawn", () => {
  it("is true on a first import, when nothing stored could be withdrawn", () => {
    expect(absenceMeansWithdrawn({ records: 100, rejected: 40 }, undefined)).toBe(true);
  });

  it("is false after a single rejection in a feed that never had one (KEV)", () => {
    expect(absenceMeansWithdrawn({ records: 1403, rejected: 1 }, success(1404, 0))).toBe(false);
    expect(absenceMeansWithdrawn({ records: 1403, rejected: 0 }, success(1404, 0))).toBe(true);
  });

  it("tolerates a feed's usual share of rejections (maltrail's host-less paths), not a clearly larger one", () => {
    const usual = success(1_850_000, 100_000);
    expect(absenceMeansWithdrawn({ records: 1_851_000, rejected: 100_100 }, usual)).toBe(true);
    expect(absenceMeansWithdrawn({ records: 1_700_000, rejected: 250_000 }, usual)).toBe(false);
  });
});
