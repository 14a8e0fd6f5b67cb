import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { checkSync } from "recheck";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { PROJECT_ROOT } from "../../helpers/paths";

/**
 * Every regular expression written in the product's code, checked for
 * catastrophic backtracking (ReDoS) by recheck: much of it reads untrusted
 * input (lookup bodies, query parameters, feed files), and one super-linear
 * pattern is enough to freeze the server. Scanning the sources, rather than
 * listing patterns by hand, keeps a new pattern from slipping past.
 */
const SOURCE_DIRS = ["server", "shared", "client"];

function* sourceFiles(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* sourceFiles(path);
    else if (/\.tsx?$/.test(entry.name)) yield path;
  }
}

interface Pattern {
  where: string;
  source: string;
  flags: string;
}

function patternsIn(path: string): Pattern[] {
  const text = readFileSync(path, "utf8");
  const file = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
  const found: Pattern[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isRegularExpressionLiteral(node)) {
      const literal = node.text;
      const end = literal.lastIndexOf("/");
      const { line } = file.getLineAndCharacterOfPosition(node.getStart());
      found.push({ where: `${relative(PROJECT_ROOT, path)}:${line + 1}`, source: literal.slice(1, end), flags: literal.slice(end + 1) });
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

const patterns = SOURCE_DIRS.flatMap((dir) => [...sourceFiles(join(PROJECT_ROOT, dir))]).flatMap(patternsIn);

describe("regular expressions in the product's code", () => {
  it("are found by the scan (the scan itself works)", () => {
    expect(patterns.length).toBeGreaterThan(100);
  });

  it("are all linear: recheck finds no catastrophic backtracking", () => {
    const vulnerable = patterns
      .map((pattern) => ({ ...pattern, result: checkSync(pattern.source, pattern.flags, { timeout: 10_000 }) }))
      .filter(({ result }) => result.status !== "safe")
      .map(
        ({ where, source, result }) =>
          `${where} /${source}/: ${result.status}${result.status === "vulnerable" ? ` (${result.complexity.summary}, attack ${JSON.stringify(result.attack.string.slice(0, 40))})` : ""}`,
      );
    expect(vulnerable).toEqual([]);
  }, 600_000);
});
