import { readFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { pageRoutes } from "../shared/routes/page-routes";

/**
 * The JavaScript each route needs before its load event, read from the Vite
 * manifest: the entry, the page's chunk, and every chunk they import
 * statically. Dynamic imports (ECharts, other pages) are left out: they load
 * after hydration. This is the figure the 120 KB gzip budget is held to
 * (tests/e2e/bundle-budget.test.ts) and that `npm run bench` prints.
 */

/** Gzip bytes of JavaScript a route may load before its load event (issue 15): 120 kB. */
export const ROUTE_JS_BUDGET_GZIP = 120_000;

interface ManifestChunk {
  file: string;
  src?: string;
  isEntry?: boolean;
  imports?: string[];
}
type Manifest = Record<string, ManifestChunk>;

export interface RouteBundle {
  route: string;
  /** The page module as the manifest names it, e.g. shared/pages/home/HomePage.tsx. */
  page: string;
  files: string[];
  gzipBytes: number;
}

function staticClosure(manifest: Manifest, keys: readonly string[]): string[] {
  const seen = new Set<string>();
  const visit = (key: string) => {
    if (seen.has(key)) return;
    const chunk = manifest[key];
    if (!chunk) throw new Error(`The Vite manifest has no chunk ${key}: rebuild (npm run build)`);
    seen.add(key);
    for (const next of chunk.imports ?? []) visit(next);
  };
  keys.forEach(visit);
  return [...seen].map((key) => manifest[key]!.file);
}

/** Every route of the route table, with its page module as the manifest names it. */
export function routeBundles(projectRoot: string, clientDir = join(projectRoot, "dist/client")): RouteBundle[] {
  const manifest = JSON.parse(readFileSync(join(clientDir, ".vite/manifest.json"), "utf8")) as Manifest;
  const entry = Object.keys(manifest).find((key) => manifest[key]!.isEntry);
  if (!entry) throw new Error("The Vite manifest names no entry chunk");
  const gzip = (file: string) => gzipSync(readFileSync(join(clientDir, file)), { level: 9 }).byteLength;
  return pageRoutes.map(({ path: route, module: page }) => {
    const files = staticClosure(manifest, [entry, page]).filter((file) => file.endsWith(".js"));
    return { route, page, files, gzipBytes: files.reduce((sum, file) => sum + gzip(file), 0) };
  });
}
