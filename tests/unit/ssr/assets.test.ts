import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { readClientAssets } from "../../../server/ssr/assets";
import type { PageRoute } from "../../../shared/routes/types";

/** A client build's manifest in the shape Vite writes it: an entry, two lazy pages and a chunk they share. */
const MANIFEST = {
  "client/entry.tsx": { file: "assets/entry-1.js", isEntry: true, css: ["assets/entry-1.css"], imports: ["_format-1.js"] },
  "_format-1.js": { file: "assets/format-1.js" },
  "_table-1.js": { file: "assets/table-1.js", imports: ["client/entry.tsx"] },
  "shared/pages/list/ListPage.tsx": { file: "assets/ListPage-1.js", isDynamicEntry: true, imports: ["client/entry.tsx", "_table-1.js"] },
  "shared/pages/start/StartPage.tsx": { file: "assets/StartPage-1.js", isDynamicEntry: true, imports: ["client/entry.tsx"] },
};

const page = (id: string, module: string): PageRoute => ({
  id,
  path: `/${id}`,
  module,
  load: async () => ({ Component: () => null, meta: () => ({ title: id, description: id }) }),
});
const pages = [page("start", "shared/pages/start/StartPage.tsx"), page("list", "shared/pages/list/ListPage.tsx")];

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function clientBuild(manifest: object): string {
  const dir = mkdtempSync(join(tmpdir(), "threat-radar-assets-"));
  dirs.push(dir);
  mkdirSync(join(dir, ".vite"));
  writeFileSync(join(dir, ".vite/manifest.json"), JSON.stringify(manifest));
  return dir;
}

describe("client assets from the build manifest", () => {
  it("preloads a page's chunk and what it imports, found by the page's module, not what the entry already loads", () => {
    const assets = readClientAssets(clientBuild(MANIFEST), pages);
    expect(assets.entry).toBe("/assets/entry-1.js");
    expect(assets.stylesheets).toEqual(["/assets/entry-1.css"]);
    expect(assets.preloadsFor(["shared/pages/list/ListPage.tsx"])).toEqual(["/assets/ListPage-1.js", "/assets/table-1.js"]);
    expect(assets.preloadsFor(["shared/pages/start/StartPage.tsx"])).toEqual(["/assets/StartPage-1.js"]);
  });

  it("refuses, when the server starts, a build that has no chunk for a page of the route table", () => {
    const moved = [...pages, page("detail", "shared/pages/detail/DetailPage.tsx")];
    expect(() => readClientAssets(clientBuild(MANIFEST), moved)).toThrow("no lazy chunk for the pages detail (shared/pages/detail/DetailPage.tsx)");
  });
});
