import { describe, expect, it } from "vitest";
import { formatProbability } from "../../../shared/util/format";

describe("formatProbability: EPSS at the precision FIRST publishes (five decimals)", () => {
  it.each([
    [0.99999, "99.999%"],
    [0.97123, "97.123%"],
    [0.5, "50.00%"],
    [0.0012, "0.12%"],
    [0.00001, "0.001%"],
    [0, "0.00%"],
    [1, "100.00%"],
  ])("%s → %s", (probability, text) => {
    expect(formatProbability(probability)).toBe(text);
  });

  it("gives the top share of a percentile without float noise", () => {
    expect(formatProbability(1 - 0.99999)).toBe("0.001%");
  });
});
