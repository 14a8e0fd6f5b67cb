import { describe, expect, it, vi } from "vitest";
import { devRendererSource, SSR_ENTRY_SOURCE } from "../../../server/ssr/load-renderer";
import * as entry from "../../../server/ssr/entry";
import { homePage } from "../../../shared/pages/home/page";
import type { PageRoute } from "../../../shared/routes/types";

/** `npm run dev` renders through Vite's module graph; these stand in for Vite with the real SSR entry. */
const home: PageRoute = homePage;

function fakeVite(modules: unknown[]) {
  let calls = 0;
  const ssrLoadModule = vi.fn(async (url: string) => {
    expect(url).toBe(SSR_ENTRY_SOURCE);
    return modules[Math.min(calls++, modules.length - 1)] as Record<string, unknown>;
  });
  return { ssrLoadModule };
}

describe("the development renderer", () => {
  it("builds the route table before the server starts: unknown middleware fails the start, not the first request", async () => {
    const vite = fakeVite([entry]);
    const pages: PageRoute[] = [{ ...home, middleware: ["missing"] }];
    await expect(devRendererSource(vite, { loadPage: async () => null, pages })).rejects.toThrow('Route "/" names unknown middleware "missing"');
    expect(vite.ssrLoadModule).toHaveBeenCalledTimes(1);
  });

  it("keeps one renderer while the module is unchanged and builds a new one after an edit", async () => {
    const edited = { createSsrRenderer: vi.fn(entry.createSsrRenderer) };
    // Start-up, two requests on the same module, then one after an edit.
    const vite = fakeVite([entry, entry, entry, edited]);
    const getRenderer = await devRendererSource(vite, { loadPage: async () => null, pages: [home] });
    const first = await getRenderer();
    expect(first.routePatterns).toEqual(["/"]);
    expect(await getRenderer()).toBe(first);
    const afterEdit = await getRenderer();
    expect(afterEdit).not.toBe(first);
    expect(edited.createSsrRenderer).toHaveBeenCalledTimes(1);
  });
});
