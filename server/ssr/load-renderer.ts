import { pathToFileURL } from "node:url";
import { join } from "node:path";
import type { ViteDevServer } from "vite";
import type { SsrRenderer, SsrRendererOptions } from "./entry";

type EntryModule = Pick<typeof import("./entry"), "createSsrRenderer">;

export const SSR_ENTRY_SOURCE = "/server/ssr/entry.tsx";

/** The production renderer: the SSR bundle Vite built next to the client. */
export async function loadBuiltRenderer<Context>(serverDir: string, options: SsrRendererOptions<Context>): Promise<SsrRenderer<Context>> {
  const module = (await import(pathToFileURL(join(serverDir, "entry.js")).href)) as EntryModule;
  return module.createSsrRenderer(options);
}

/**
 * The development renderer, re-created whenever Vite's module graph changed so
 * that edits to pages show up without restarting the server. It is built once
 * before this resolves, so a route table that cannot be built (e.g. a route
 * naming unknown middleware) stops `npm run dev` at start-up, as in production.
 */
export async function devRendererSource<Context>(
  vite: Pick<ViteDevServer, "ssrLoadModule">,
  options: SsrRendererOptions<Context>,
): Promise<() => Promise<SsrRenderer<Context>>> {
  let cached: { module: EntryModule; renderer: SsrRenderer<Context> } | null = null;
  const current = async () => {
    const module = (await vite.ssrLoadModule(SSR_ENTRY_SOURCE)) as EntryModule;
    if (cached?.module !== module) cached = { module, renderer: module.createSsrRenderer(options) };
    return cached.renderer;
  };
  await current();
  return current;
}
