import { parseCveId } from "../../../shared/cve/cve-id";
import type { CveWeakness, ExploitReference, TrickestRecord } from "./records";
import { accepted, rejected, type ParseResult } from "../toolkit/result";
import { readLines } from "../toolkit/lines";
import type { FeedInput } from "../toolkit/stream";

const BADGE_START = "![](https://img.shields.io/static/v1?";
const HEADING_ID = /^###\s*\[(CVE-\d{4}-\d+)\]/m;
const CWE_ID = /^CWE-\d+/;

/**
 * The label and message of every shields.io badge, in order. Found by
 * position rather than one regular expression: a pattern spanning the
 * badge's free-text fields backtracks on a crafted page.
 */
function* badges(markdown: string): Generator<[label: string, message: string]> {
  for (let at = markdown.indexOf(BADGE_START); at >= 0; at = markdown.indexOf(BADGE_START, at + 1)) {
    // The message may hold parentheses ("CWE-79 … ('Cross-site Scripting')"): the badge ends at the first ")" after its color.
    const color = markdown.indexOf("&color=", at);
    if (color < 0) return;
    const next = markdown.indexOf(BADGE_START, at + 1);
    if (next >= 0 && next < color) continue;
    const end = markdown.indexOf(")", color);
    if (end < 0) return;
    const fields = new Map<string, string>();
    for (const pair of markdown.slice(at + BADGE_START.length, end).split("&")) {
      const eq = pair.indexOf("=");
      if (eq > 0) fields.set(pair.slice(0, eq), pair.slice(eq + 1));
    }
    const label = fields.get("label");
    const message = fields.get("message");
    if (label !== undefined && message !== undefined) yield [label, message];
  }
}

function decode(text: string): string {
  try {
    return decodeURIComponent(text).trim();
  } catch {
    return text.trim();
  }
}

function isPlaceholder(value: string): boolean {
  return value === "" || value.toLowerCase() === "n/a";
}

/** URLs listed as "- https://…" under a "#### <title>" heading, up to the next heading. */
function listUnder(markdown: string, title: string): string[] {
  const start = markdown.search(new RegExp(`^#### ${title}\\s*$`, "m"));
  if (start < 0) return [];
  const urls: string[] = [];
  for (const line of markdown.slice(start).split("\n").slice(1)) {
    if (line.startsWith("#")) break;
    const match = /^-\s+(https?:\/\/\S+)/.exec(line.trim());
    if (match?.[1]) urls.push(match[1]);
  }
  return urls;
}

/**
 * One trickest/cve markdown file: shields.io badges for products, versions
 * and CWEs, then "#### Reference" and "#### Github" link lists under "### POC".
 */
export function parseTrickestMarkdown(path: string, markdown: string, location: string): ParseResult<TrickestRecord> {
  const fromPath = /(CVE-\d{4}-\d+)\.md$/i.exec(path)?.[1];
  const cveId = parseCveId(fromPath ?? HEADING_ID.exec(markdown)?.[1] ?? "");
  if (!cveId) return rejected(location, `no CVE id in path ${JSON.stringify(path)} or heading`);

  const products = new Set<string>();
  const versions = new Set<string>();
  const weaknesses: CveWeakness[] = [];
  for (const [label, message] of badges(markdown)) {
    const value = decode(message);
    if (isPlaceholder(value)) continue;
    if (label === "Product") products.add(value);
    else if (label === "Version") versions.add(value);
    else if (label === "Vulnerability") {
      const cweId = CWE_ID.exec(value)?.[0];
      if (cweId && !weaknesses.some((w) => w.cweId === cweId)) {
        weaknesses.push({ source: "trickest", cweId, description: value });
      }
    }
  }

  const exploits = new Map<string, ExploitReference>();
  for (const url of listUnder(markdown, "Github")) exploits.set(url, { url, kind: "poc-repository" });
  for (const url of listUnder(markdown, "Reference")) {
    if (!exploits.has(url)) exploits.set(url, { url, kind: "reference" });
  }
  return accepted({
    cveId,
    products: [...products],
    versions: [...versions],
    weaknesses,
    exploits: [...exploits.values()],
  });
}

/** Bundle of `{"path": "2024/CVE-2024-3400.md", "content": "<markdown>"}` lines. */
export async function* parseTrickestLines(input: FeedInput, name: string): AsyncGenerator<ParseResult<TrickestRecord>> {
  for await (const lines of readLines(input, { maxLineLength: Infinity })) {
    for (const { number, text } of lines) {
      if (text === null || text.trim() === "") continue;
      yield parseTrickestLine(text, `${name}:${number}`);
    }
  }
}

function parseTrickestLine(line: string, location: string): ParseResult<TrickestRecord> {
  let entry: unknown;
  try {
    entry = JSON.parse(line);
  } catch (error) {
    return rejected(location, `invalid JSON: ${(error as Error).message}`);
  }
  const { path, content } = (entry ?? {}) as { path?: unknown; content?: unknown };
  if (typeof path !== "string" || typeof content !== "string") {
    return rejected(location, 'expected {"path": string, "content": string}');
  }
  return parseTrickestMarkdown(path, content, location);
}
