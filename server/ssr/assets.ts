import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { BuildInfo } from "../../shared/config/public-config";

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
  /** Modules worth preloading when these page routes render. */
  preloadsFor(pageIds: readonly string[]): string[];
}

export const CLIENT_ENTRY_SOURCE = "client/entry.tsx";

/**
 * Reads Vite's manifest of a production client build. Page chunks are found by
 * the convention that page `<id>` lives in `shared/pages/<id>/`.
 */
export function readClientAssets(clientDir: string): ClientAssets {
  const manifest = JSON.parse(readFileSync(join(clientDir, ".vite/manifest.json"), "utf8")) as Record<string, ManifestChunk>;
  const entry = manifest[CLIENT_ENTRY_SOURCE];
  if (!entry) throw new Error(`The Vite manifest in ${clientDir} has no ${CLIENT_ENTRY_SOURCE}`);

  const collect = (key: string, into: Set<string>) => {
    const chunk = manifest[key];
    if (!chunk || into.has(`/${chunk.file}`)) return;
    into.add(`/${chunk.file}`);
    for (const imported of chunk.imports ?? []) collect(imported, into);
  };
  const pageChunkKey = (pageId: string) =>
    Object.keys(manifest).find((key) => manifest[key]?.isDynamicEntry && key.startsWith(`shared/pages/${pageId}/`));

  const entryModules = new Set<string>();
  collect(CLIENT_ENTRY_SOURCE, entryModules);
  return {
    entry: `/${entry.file}`,
    stylesheets: (entry.css ?? []).map((file) => `/${file}`),
    preloadsFor(pageIds) {
      const modules = new Set<string>();
      for (const id of pageIds) {
        const key = pageChunkKey(id);
        if (key) collect(key, modules);
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
