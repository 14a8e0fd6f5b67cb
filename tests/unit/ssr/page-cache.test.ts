import { afterEach, describe, expect, it, vi } from "vitest";
import { PageCache } from "../../../server/ssr/page-cache";

const page = { status: 200, contentType: "text/html; charset=utf-8", text: "<p>hello</p>" };
/** A key of the home page's family; its data is the version before the hour (`page|build|VERSION|HOUR|/`). */
const key = (id: string, family = "page|build|/") => ({ id, family, sameData: id.split("|").slice(0, 3).join("|") });

describe("the page cache's statistics", () => {
  it("count one miss and one hit per request, and a miss found on a second look (after waiting in line) as a hit", () => {
    const cache = new PageCache({ maxBytes: 1024 * 1024, level: 6 });
    expect(cache.get("a")).toBeUndefined();
    expect(cache.getAfterMiss("a")).toBeUndefined();
    expect(cache.stats()).toMatchObject({ hits: 0, misses: 1 });

    expect(cache.get("b")).toBeUndefined();
    cache.set(key("b"), page, null);
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

describe("the document of the data just replaced", () => {
  afterEach(() => vi.useRealTimers());

  it("is its family's last stored document under another key, counted as a hit", () => {
    const cache = new PageCache({ maxBytes: 1024 * 1024, level: 6 });
    cache.set(key("page|build|1|/"), page, null);
    cache.set(key("page|build|2|/"), { ...page, text: "<p>newer</p>" }, null);
    expect(cache.get("page|build|3|/")).toBeUndefined();
    expect(cache.stats()).toMatchObject({ hits: 0, misses: 1, previous: 0 });
    const previous = cache.previous(key("page|build|3|/"));
    expect(previous?.body.plain.join("")).toBe("<p>newer</p>");
    expect(cache.stats()).toMatchObject({ hits: 1, misses: 0, previous: 1 });
  });

  it("is none for the key itself, another family, or another build", () => {
    const cache = new PageCache({ maxBytes: 1024 * 1024, level: 6 });
    cache.set(key("page|build|1|/"), page, null);
    expect(cache.previous(key("page|build|1|/"))).toBeUndefined();
    expect(cache.previous(key("page|build|2|/cve-radar", "page|build|/cve-radar"))).toBeUndefined();
    expect(cache.previous(key("page|other|2|/", "page|other|/"))).toBeUndefined();
  });

  it("is none once it was last served more than a minute ago, or when the cache let it go", () => {
    vi.useFakeTimers({ now: new Date("2026-11-27T10:00:00Z") });
    const cache = new PageCache({ maxBytes: 1024 * 1024, level: 6 });
    cache.set(key("page|build|1|/"), page, null);
    vi.setSystemTime(new Date("2026-11-27T10:00:50Z"));
    expect(cache.get("page|build|1|/")).toBeDefined();
    vi.setSystemTime(new Date("2026-11-27T10:01:40Z"));
    expect(cache.previous(key("page|build|2|/"))).toBeDefined();
    vi.setSystemTime(new Date("2026-11-27T10:01:51Z"));
    expect(cache.previous(key("page|build|2|/"))).toBeUndefined();

    const small = new PageCache({ maxBytes: 1, level: 6 });
    small.set(key("page|build|1|/"), page, null);
    expect(small.previous(key("page|build|2|/"))).toBeUndefined();
  });
});

describe("whether the previous document shows the same data", () => {
  it("is so when only the hour of the clock moved since it was stored", () => {
    const cache = new PageCache({ maxBytes: 1024 * 1024, level: 6 });
    cache.set(key("page|build|7|2026-11-27T10|/"), page, null);
    expect(cache.previousShowsSameData(key("page|build|7|2026-11-27T11|/"))).toBe(true);
  });

  it("is not so when the data moved, for the key itself, for another family, or with nothing stored", () => {
    const cache = new PageCache({ maxBytes: 1024 * 1024, level: 6 });
    expect(cache.previousShowsSameData(key("page|build|7|2026-11-27T11|/"))).toBe(false);
    cache.set(key("page|build|7|2026-11-27T10|/"), page, null);
    expect(cache.previousShowsSameData(key("page|build|8|2026-11-27T11|/"))).toBe(false);
    expect(cache.previousShowsSameData(key("page|build|8|2026-11-27T10|/"))).toBe(false);
    expect(cache.previousShowsSameData(key("page|build|7|2026-11-27T10|/"))).toBe(false);
    expect(cache.previousShowsSameData(key("page|build|7|2026-11-27T11|/ioc-radar", "page|build|/ioc-radar"))).toBe(false);
  });
});
