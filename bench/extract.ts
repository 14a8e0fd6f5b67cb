/**
 * Extraction time on adversarial bodies of n and 4n characters: linear work
 * takes about 4x as long for 4x the text, quadratic work 16x. A figure for
 * the record, not a test (the unit tests check the work by counting):
 *   npx tsx bench/extract.ts [n]
 */
import { extractIndicatorsWithWork } from "../shared/ioc/extract";

const n = Number(process.argv[2] ?? 200_000);

/** Unit strings repeated to the wanted length: the shapes that made the old extractor quadratic, and their cousins. */
const SHAPES: Readonly<Record<string, string>> = {
  newlines: "\n",
  spaces: " ",
  "[.]": "[.]",
  " [.] ": " [.] ",
  "[.]\\n": "[.]\n",
  "a.": "a.",
  "a[.": "a[.",
  brackets: "([{",
  closers: ")]}",
  "1.": "1.",
  "a:": "a:",
  "a/": "a/",
  "a,": "a,",
  tabs: "\t",
  "\\.": "\\.",
  "hxxp": "hxxp",
  "ip list": "192.0.2.1 ",
  "defanged urls": "hxxps[:]//evil[.]com:8080/x ",
};

function body(unit: string, length: number): string {
  return unit.repeat(Math.ceil(length / unit.length)).slice(0, length);
}

function time(text: string): { ms: number; work: number; found: number } {
  const start = process.hrtime.bigint();
  const { indicators, work } = extractIndicatorsWithWork(text, Number.MAX_SAFE_INTEGER);
  return { ms: Number(process.hrtime.bigint() - start) / 1e6, work, found: indicators.length };
}

// One warm-up so the first shape does not pay for loading the public-suffix list.
time(body("evil.com 1.2.3.4 ", 10_000));
console.log(`shape\tms(n=${n})\tms(4n)\tratio\twork/char(4n)\tfound(4n)`);
for (const [name, unit] of Object.entries(SHAPES)) {
  const small = time(body(unit, n));
  const large = time(body(unit, 4 * n));
  const ratio = small.ms > 0 ? (large.ms / small.ms).toFixed(1) : "-";
  console.log(`${name}\t${small.ms.toFixed(1)}\t${large.ms.toFixed(1)}\t${ratio}\t${(large.work / (4 * n)).toFixed(2)}\t${large.found}`);
}
