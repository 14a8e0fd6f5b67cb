import { describe, expect, it } from "vitest";
import { extractIndicatorsWithWork } from "../../../shared/ioc/extract";

/*
 * Extraction must be linear in the size of any pasted text (issue 9: 80,000
 * line breaks took 10 s). Time is not asserted; the work is counted instead:
 * the extractor reports how many characters it handed to its readers, each of
 * which is linear in its input by construction (no pattern with overlapping
 * quantifiers). These bodies are the shapes that were quadratic before and
 * their cousins; bench/extract.ts prints the times.
 */
const SIZE = 800_000;

function body(unit: string, length: number): string {
  return unit.repeat(Math.ceil(length / unit.length)).slice(0, length);
}

/** A body of distinct tokens: caching a token already read does not help. */
function distinct(make: (i: number) => string, length: number): string {
  const parts: string[] = [];
  let size = 0;
  for (let i = 0; size < length; i += 1) {
    const part = make(i);
    parts.push(part);
    size += part.length;
  }
  return parts.join("");
}

const ADVERSARIAL: ReadonlyArray<readonly [string, string]> = [
  ["line breaks", "\n"],
  ["CRLF", "\r\n"],
  ["spaces", " "],
  ["tabs", "\t"],
  ["no-break spaces", "\u00a0"],
  ["dot markers", "[.]"],
  ["spaced dot markers", " [.] "],
  ["dot markers at line ends", "[.]\n"],
  ["spaces then a line break", "      [.]      \n"],
  ["half markers", "a[."],
  ["opening brackets", "([{"],
  ["closing brackets", ")]}"],
  ["dots", "."],
  ["a.", "a."],
  ["1.", "1."],
  ["a:", "a:"],
  ["a/", "a/"],
  ["a,", "a,"],
  ["a@", "a@"],
  ["escaped dots", "\\."],
  ["scheme words", "hxxp"],
  ["scheme separators", "[://]"],
  ["spaced dots", "a . "],
  ["hex", "f"],
];

describe("extraction work is linear in the text", () => {
  it.each(ADVERSARIAL)("800 KB of %s: nothing found, work within 4 characters read per character", (_name, unit) => {
    const text = body(unit, SIZE);
    const { indicators, work } = extractIndicatorsWithWork(text);
    expect(indicators).toEqual([]);
    expect(work).toBeLessThanOrEqual(4 * text.length);
  });

  it.each([
    ["invalid defanged names, one a line", (i: number) => `a${i}[.]b\n`],
    ["file names", (i: number) => `x${i}.exe `],
    ["host/path pieces in lists", (i: number) => `a${i}.b/c:d,e `],
    ["bracketed schemes", (i: number) => `h${i}[:]//a[.)b `],
    ["broken addresses", (i: number) => `${i}.1.1.1.1/x `],
    ["e-mail look-alikes", (i: number) => `q${i}@x[.]y `],
  ])("200 KB of distinct %s: work within 8 characters read per character", (_name, make) => {
    const text = distinct(make, SIZE / 4);
    const { work } = extractIndicatorsWithWork(text, Number.MAX_SAFE_INTEGER);
    expect(work).toBeLessThanOrEqual(8 * text.length);
  });

  it("four times the text is at most four times the work", () => {
    for (const make of [(i: number) => `a${i}[.]b:${i}/x,${i}\n`, (i: number) => `hxxps[:]//e${i}[.]com:8080/p `]) {
      const small = extractIndicatorsWithWork(distinct(make, SIZE / 16), Number.MAX_SAFE_INTEGER).work;
      const large = extractIndicatorsWithWork(distinct(make, SIZE / 4), Number.MAX_SAFE_INTEGER).work;
      expect(large).toBeLessThanOrEqual(4.1 * small);
    }
  });

  it("finds what is there in a big body, once", () => {
    const text = body("evil[.]com [.]\n", SIZE);
    expect(extractIndicatorsWithWork(text).indicators.map((f) => f.value)).toEqual(["evil.com"]);
    const lines = distinct((i) => `hxxp://10.0.${(i >> 8) & 255}[.]${i & 255}:8080/g\n`, SIZE);
    const { indicators } = extractIndicatorsWithWork(lines, 1001);
    expect(indicators).toHaveLength(1001);
    expect(indicators[0]?.value).toBe("http://10.0.0.0:8080/g");
  });

  it("skips a token longer than any indicator without reading it", () => {
    const long = `http://evil.com/${"a".repeat(SIZE)}`;
    const { indicators, work } = extractIndicatorsWithWork(`${long} 1.2.3.4`);
    expect(indicators.map((f) => f.value)).toEqual(["1.2.3.4"]);
    expect(work).toBeLessThanOrEqual(4 * long.length);
  });
});
