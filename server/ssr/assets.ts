import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { BuildInfo } from "../../shared/config/public-config";
import type { PageRoute } from "../../shared/routes/types";

interface ManifestChunk {
  file: string;
  src?: string;
  css?: string[];
  imports?: string[];
  isEntry?: boolean;
  isDynamicEntry?: boolean;
}

export interface ClientAssets {
  /** Module the browser starts from, handed to React as a bootstrap module. */
  entry: string;
  stylesheets: string[];
  /** Files worth preloading when pages with these source modules (`PageRoute.module`) render. */
  preloadsFor(pageModules: readonly string[]): string[];
}

export const CLIENT_ENTRY_SOURCE = "client/entry.tsx";

/**
 * Reads Vite's manifest of a production client build. A page's chunk is the
 * manifest entry of its module as the route table names it; a page the build
 * has no lazy chunk for (a stale build, a module moved without updating its
 * definition) stops the start here rather than losing its preloads.
 */
export function readClientAssets(clientDir: string, pages: readonly PageRoute[]): ClientAssets {
  const manifest = JSON.parse(readFileSync(join(clientDir, ".vite/manifest.json"), "utf8")) as Record<string, ManifestChunk>;
  const entry = manifest[CLIENT_ENTRY_SOURCE];
  if (!entry) throw new Error(`The Vite manifest in ${clientDir} has no ${CLIENT_ENTRY_SOURCE}`);

  const collect = (key: string, into: Set<string>) => {
    const chunk = manifest[key];
    if (!chunk || into.has(`/${chunk.file}`)) return;
    into.add(`/${chunk.file}`);
    for (const imported of chunk.imports ?? []) collect(imported, into);
  };
  const missing = pages.filter((page) => !manifest[page.module]?.isDynamicEntry);
  if (missing.length > 0) {
    const names = missing.map((page) => `${page.id} (${page.module})`).join(", ");
    throw new Error(`The Vite manifest in ${clientDir} has no lazy chunk for the pages ${names}: rebuild (npm run build)`);
  }

  const entryModules = new Set<string>();
  collect(CLIENT_ENTRY_SOURCE, entryModules);
  return {
    entry: `/${entry.file}`,
    stylesheets: (entry.css ?? []).map((file) => `/${file}`),
    preloadsFor(pageModules) {
      const modules = new Set<string>();
      for (const key of pageModules) {
        if (manifest[key]?.isDynamicEntry) collect(key, modules);
      }
      return [...modules].filter((file) => !entryModules.has(file));
    },
  };
}

/** In development Vite serves the sources themselves. */
export const devClientAssets: ClientAssets = {
  entry: `/${CLIENT_ENTRY_SOURCE}`,
  stylesheets: ["/client/styles/app.css"],
  preloadsFor: () => [],
};

export function readBuildInfo(clientDir: string): BuildInfo {
  return JSON.parse(readFileSync(join(clientDir, ".vite/build.json"), "utf8")) as BuildInfo;
}
