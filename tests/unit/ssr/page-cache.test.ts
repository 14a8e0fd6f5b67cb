import { describe, expect, it } from "vitest";
import { PageCache } from "../../../server/ssr/page-cache";

const page = { status: 200, contentType: "text/html; charset=utf-8", text: "<p>hello</p>" };

describe("the page cache's statistics", () => {
  it("count one miss and one hit per request, and a miss found on a second look (after waiting in line) as a hit", () => {
    const cache = new PageCache({ maxBytes: 1024 * 1024, level: 6 });
    expect(cache.get("a")).toBeUndefined();
    expect(cache.getAfterMiss("a")).toBeUndefined();
    expect(cache.stats()).toMatchObject({ hits: 0, misses: 1 });

    expect(cache.get("b")).toBeUndefined();
    cache.set("b", page, null);
    expect(cache.getAfterMiss("b")?.status).toBe(200);
    expect(cache.get("b")?.status).toBe(200);
    expect(cache.stats()).toMatchObject({ hits: 2, misses: 1, entries: 1 });
  });
});

describe("the page cache's renders under way", () => {
  it("let one request claim a key's render at a time, and settle for the others when it ends", async () => {
    const cache = new PageCache({ maxBytes: 1024 * 1024, level: 6 });
    expect(cache.rendering("a")).toBeUndefined();
    const end = cache.startRender("a");
    expect(end).not.toBeNull();
    expect(cache.startRender("a")).toBeNull();
    expect(cache.startRender("b")).not.toBeNull();

    let settled = false;
    const waiting = cache.rendering("a")!.then(() => (settled = true));
    await Promise.resolve();
    expect(settled).toBe(false);
    end!();
    await waiting;
    expect(settled).toBe(true);
    expect(cache.rendering("a")).toBeUndefined();
  });

  it("keep a later claim when an earlier one is ended twice", () => {
    const cache = new PageCache({ maxBytes: 1024 * 1024, level: 6 });
    const first = cache.startRender("a")!;
    first();
    const second = cache.startRender("a");
    expect(second).not.toBeNull();
    first();
    expect(cache.rendering("a")).toBeDefined();
    second!();
    expect(cache.rendering("a")).toBeUndefined();
  });
});
