import { existsSync, readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";

// Relative module specifiers in static imports and re-exports, dynamic
// imports, and the entry files a module forks or runs in a worker
// (server/runtime/entry-file.ts: `entryFile(import.meta.url, "./x.ts", …)`).
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(?\s*|\bentryFile\(\s*import\.meta\.url\s*,\s*)["'](\.{1,2}\/[^"']+)["']/g;
const EXTENSIONS = ["", ".ts", ".tsx", "/index.ts"];

function resolveModule(fromFile: string, specifier: string): string | null {
  const base = resolve(dirname(fromFile), specifier);
  for (const extension of EXTENSIONS) {
    const candidate = base + extension;
    if (/\.tsx?$/.test(candidate) && existsSync(candidate)) return candidate;
  }
  return null;
}

/**
 * Every source file `entry` reaches through relative imports (type-only ones
 * too), sorted, `entry` included. A specifier that names no TypeScript file
 * (a CSS or JSON import, a package) is not followed.
 */
export function moduleClosure(entry: string): string[] {
  const seen = new Set<string>([entry]);
  const pending = [entry];
  for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
    for (const [, specifier] of readFileSync(file, "utf8").matchAll(SPECIFIER)) {
      const target = resolveModule(file, specifier!);
      if (target && !seen.has(target)) {
        seen.add(target);
        pending.push(target);
      }
    }
  }
  return [...seen].sort();
}
