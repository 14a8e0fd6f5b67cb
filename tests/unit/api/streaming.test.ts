import { describe, expect, it } from "vitest";
import { jsonArrayChunks, slices } from "../../../server/api/streaming";

describe("export chunks", () => {
  it("slices rows into chunks of at most the given size, in order, leaving none out", () => {
    expect([...slices([1, 2, 3, 4, 5], 2)]).toEqual([[1, 2], [3, 4], [5]]);
    expect([...slices([], 2)]).toEqual([]);
  });

  it("joins JSON array items chunk by chunk into one valid array, empty chunks included", () => {
    const items = jsonArrayChunks();
    const text = `[${[items(["1", "2"]), items([]), items(["3"]), items(["4", "5"])].join("")}]`;
    expect(JSON.parse(text)).toEqual([1, 2, 3, 4, 5]);
    expect(`[${jsonArrayChunks()([])}]`).toBe("[]");
  });
});
