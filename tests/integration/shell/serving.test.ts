import { request as httpRequest } from "node:http";
import type { AddressInfo } from "node:net";
import request from "supertest";
import type { Kysely, Transaction } from "kysely";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { Database } from "../../../server/db/schema";
import { acquireImportLock, type ImportLock } from "../../../server/pipeline/engine/lock";
import { PageCache } from "../../../server/ssr/page-cache";
import { cspNonce } from "../../helpers/html";
import { createTestApp, testDatabaseKind, type TestApp } from "../../helpers/test-app";

/** A response's body with its own nonce replaced, to compare two responses of one page. */
function withoutNonce(res: request.Response): string {
  return res.text.replaceAll(cspNonce(res.headers["content-security-policy"]), "NONCE");
}

/**
 * Records a source, as an import's publish would, and waits until the app has
 * seen it: on PostgreSQL the data version moves when the commit's
 * notification arrives, which may be after the insert returns.
 */
async function publishSource(t: TestApp, name: string): Promise<void> {
  const before = t.reads.dataVersion();
  await t.database.db.insertInto("sources").values({ name, status: "ok", last_success_at: new Date().toISOString() }).execute();
  await vi.waitFor(() => expect(t.reads.dataVersion()).not.toBe(before));
}

/** Sends every request before reading any answer. */
function sendBurst(origin: string, path: string, count: number): Promise<Array<{ status: number; headers: Record<string, unknown>; body: string }>> {
  return Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<{ status: number; headers: Record<string, unknown>; body: string }>((resolve, reject) => {
          const req = httpRequest(`${origin}${path}`, { agent: false }, (res) => {
            let body = "";
            res.setEncoding("utf8");
            res.on("data", (chunk: string) => (body += chunk));
            res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
          });
          req.on("error", reject);
          req.end();
        }),
    ),
  );
}

describe("the page cache", () => {
  let t: TestApp;
  const cache = new PageCache({ maxBytes: 16 * 1024 * 1024, level: 9 });

  beforeAll(async () => {
    t = await createTestApp({ pageCache: cache });
  });
  afterAll(() => t.close());

  it("serves a repeated view from the cache: the same page, with each response's own nonce", async () => {
    const before = cache.stats();
    const first = await request(t.app).get("/cve-radar?kev=1").expect(200);
    const second = await request(t.app).get("/cve-radar?kev=1").expect(200);
    expect(cache.stats().misses - before.misses).toBe(1);
    expect(cache.stats().hits - before.hits).toBe(1);
    expect(withoutNonce(second)).toBe(withoutNonce(first));
    const nonces = [first, second].map((res) => cspNonce(res.headers["content-security-policy"]));
    expect(nonces[0]).not.toBe(nonces[1]);
    // Every inline script of the cached copy carries this response's nonce, and no other.
    const scripts = [...second.text.matchAll(/<script\b[^>]*>/g)].map((m) => m[0]);
    expect(scripts.length).toBeGreaterThanOrEqual(2);
    for (const script of scripts) expect(script).toContain(`nonce="${nonces[1]}"`);
    expect(second.text).not.toContain(nonces[0]);
    expect(second.headers["content-encoding"]).toBe("gzip");
    expect(second.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(second.headers["cache-control"]).toBe("private, no-cache");
  });

  it("sends the cached page uncompressed to a client that does not take gzip", async () => {
    await request(t.app).get("/ioc-radar").expect(200);
    const plain = await request(t.app).get("/ioc-radar").set("Accept-Encoding", "identity").expect(200);
    expect(plain.headers["content-encoding"]).toBeUndefined();
    expect(plain.text).toContain(`nonce="${cspNonce(plain.headers["content-security-policy"])}"`);
  });

  it("renders again once the data changed", async () => {
    await request(t.app).get("/cve-radar").expect(200);
    const misses = cache.stats().misses;
    await publishSource(t, "cisa-kev");
    await request(t.app).get("/cve-radar").expect(200);
    expect(cache.stats().misses).toBe(misses + 1);
  });

  it("caches page payloads too", async () => {
    const url = `/ioc-radar/_payload.json?${t.buildId}&type=url`;
    const first = await request(t.app).get(url).expect(200);
    const hits = cache.stats().hits;
    const second = await request(t.app).get(url).expect(200);
    expect(cache.stats().hits).toBe(hits + 1);
    expect(second.body).toEqual(first.body);
    expect(second.body.kind).toBe("data");
  });

  it("keeps one copy of the 429 screen for every rate-limited page, each with its own nonce", async () => {
    const limitedApp = await createTestApp({ pageCache: new PageCache({ maxBytes: 1024 * 1024, level: 9 }), env: { RATE_LIMIT_PAGES_MAX: "2" } });
    const over = [];
    for (let i = 0; i < 6; i++) over.push(await request(limitedApp.app).get(`/cve-radar?page=${i + 1}`));
    await limitedApp.close();
    const limited = over.filter((res) => res.status === 429);
    expect(limited.length).toBeGreaterThanOrEqual(2);
    expect(withoutNonce(limited[1]!)).toBe(withoutNonce(limited[0]!));
    expect(limited[1]!.text).toContain("Too many requests");
  });
});

// On the project's database: the web process knows an import runs from the lock's row (SQLite) or the
// lock holder's notifications (PostgreSQL).
describe(`the page cache while an import runs (${testDatabaseKind()})`, () => {
  let t: TestApp;
  const cache = new PageCache({ maxBytes: 16 * 1024 * 1024, level: 9 });
  /** Loader runs still to fail. */
  let failing = 0;
  /** Every loader run waits for it. */
  let gate: Promise<void> = Promise.resolve();
  let queries = 0;

  beforeAll(async () => {
    t = await createTestApp({
      pageCache: cache,
      wrapRenderer: (renderer) => ({
        ...renderer,
        query: async (...args) => {
          queries += 1;
          await gate;
          if (failing > 0) {
            failing -= 1;
            throw new Error("the database went away mid-render");
          }
          return renderer.query(...args);
        },
      }),
    });
  });
  afterAll(() => t.close());

  /**
   * How many of `urls`, requested once each, were rendered rather than taken
   * from the cache: before their answer (a miss) or after it, in the
   * background (an answer with the document of the data just replaced).
   */
  async function rendered(urls: readonly string[]): Promise<number> {
    const before = cache.stats();
    for (const url of urls) await request(t.app).get(url).expect(200);
    await vi.waitFor(() => expect(cache.rendersUnderWay()).toBe(0));
    const after = cache.stats();
    return after.misses - before.misses + (after.previous - before.previous);
  }

  /** Takes the import lock, and waits until the app knows (on PostgreSQL, once the holder's notification arrives). */
  async function takeLock(): Promise<ImportLock> {
    const lock = await acquireImportLock(t.store.db);
    await vi.waitFor(() => expect(t.reads.importRunning()).toBe(true));
    return lock;
  }

  async function releaseLock(lock: ImportLock): Promise<void> {
    await lock.release();
    await vi.waitFor(() => expect(t.reads.importRunning()).toBe(false));
  }

  /**
   * Publishes `source` as an import holding the lock does: its data changes
   * (`change`) and its `sources` row in one transaction. Waits until the
   * app has seen the commit (on PostgreSQL, once its notification arrives).
   */
  async function publishUnderLock(lock: ImportLock, source: string, change?: (trx: Transaction<Database>) => Promise<unknown>): Promise<void> {
    await lock.setSource(source);
    const at = new Date().toISOString();
    const before = t.reads.dataVersion();
    await t.store.db.transaction().execute(async (trx) => {
      await change?.(trx);
      await trx
        .insertInto("sources")
        .values({ name: source, status: "ok", last_success_at: at })
        .onConflict((conflict) => conflict.column("name").doUpdateSet({ last_success_at: at }))
        .execute();
    });
    await vi.waitFor(() => expect(t.reads.dataVersion()).not.toBe(before));
  }

  it("keeps one radar's pages when the other radar's feed publishes, and renders every page again once the import ends after another writer's commit", async () => {
    const cvePages = ["/cve-radar", `/cve-radar/_payload.json?${t.buildId}&kev=1`];
    const iocPages = ["/ioc-radar", "/ioc-radar?type=domain", `/ioc-radar/_payload.json?${t.buildId}`];
    await rendered([...cvePages, ...iocPages, "/"]);

    const lock = await takeLock();
    await publishUnderLock(lock, "epss");
    expect(await rendered(iocPages)).toBe(0);
    expect(await rendered(cvePages)).toBe(cvePages.length);
    // The home page shows both radars.
    expect(await rendered(["/"])).toBe(1);

    await publishUnderLock(lock, "tweetfeed");
    expect(await rendered(cvePages)).toBe(0);
    expect(await rendered(iocPages)).toBe(iocPages.length);

    // Not the import's: it could have changed either radar's data, and is seen when the import ends.
    await t.database.db.insertInto("tags").values({ name: "tagged by hand during the import" }).execute();
    await releaseLock(lock);
    expect(await rendered([...cvePages, ...iocPages])).toBe(cvePages.length + iocPages.length);
  });

  it("answers the first view after a publish with the page of the data just replaced and renders the new one in the background; once the import ends, the first view renders before its answer", async () => {
    const cve = "CVE-2024-0042";
    await t.store.db
      .insertInto("cves")
      .values({ id: cve, state: "PUBLISHED", descriptions: "[]", date_published: "2024-05-01T10:00:00Z", title: "Before the import" })
      .execute();
    const page = "/cve-radar";
    const payload = `/cve-radar/_payload.json?${t.buildId}`;
    const retitle = (db: Kysely<Database>, title: string) => db.updateTable("cves").set({ title }).where("id", "=", cve).execute();
    const old = withoutNonce(await request(t.app).get(page).expect(200));
    const oldPayload = (await request(t.app).get(payload).expect(200)).text;

    const lock = await takeLock();
    await publishUnderLock(lock, "cve-json5", (trx) => retitle(trx, "Retitled by the import"));

    const stats = cache.stats();
    const stale = await request(t.app).get(page).expect(200);
    const stalePayload = await request(t.app).get(payload).expect(200);
    expect(withoutNonce(stale)).toBe(old);
    expect(stalePayload.text).toBe(oldPayload);
    expect(cache.stats()).toMatchObject({ misses: stats.misses, previous: stats.previous + 2 });
    // The stale copy carries this response's own nonce, like any cached page.
    expect(stale.text).toContain(`nonce="${cspNonce(stale.headers["content-security-policy"])}"`);

    await vi.waitFor(() => expect(cache.rendersUnderWay()).toBe(0));
    expect((await request(t.app).get(page).expect(200)).text).toContain("Retitled by the import");
    expect((await request(t.app).get(payload).expect(200)).text).toContain("Retitled by the import");
    expect(cache.stats()).toMatchObject({ misses: stats.misses, hits: stats.hits + 4, previous: stats.previous + 2 });

    // Once the import ends, nothing older than the data is sent: the first view renders before its answer.
    // Another writer's commit while the import holds the lock: the version does not move for it until the import ends.
    await retitle(t.database.db, "Retitled after the import");
    await releaseLock(lock);
    const afterRelease = cache.stats();
    const first = await request(t.app).get(page).expect(200);
    expect(first.text).toContain("Retitled after the import");
    expect(cache.stats()).toMatchObject({ misses: afterRelease.misses + 1, previous: afterRelease.previous });
  });
  it("names the running import and its source in /api/v1/sources as soon as the app knows, and none once it ends", async () => {
    const running = async () => (await request(t.app).get("/api/v1/sources").expect(200)).body.running as { source: string | null } | null;
    expect(await running()).toBeNull();
    const lock = await takeLock();
    await lock.setSource("epss");
    await vi.waitFor(async () => expect(await running()).toMatchObject({ source: "epss" }));
    await lock.setSource("maltrail");
    await vi.waitFor(async () => expect(await running()).toMatchObject({ source: "maltrail" }));
    await releaseLock(lock);
    expect(await running()).toBeNull();
  });

  it("renders a first view before its answer once 4 renders are under way in the background", async () => {
    const pages = ["alpha", "bravo", "charlie", "delta", "echo"].map((word) => `/cve-radar?q=${word}`);
    for (const page of pages) await request(t.app).get(page).expect(200);
    const lock = await takeLock();
    await publishUnderLock(lock, "cve-json5");

    let open!: () => void;
    gate = new Promise((resolve) => (open = resolve));
    queries = 0;
    const stats = cache.stats();
    // Answered at once, each with its previous page, while its render waits at the gate.
    for (const page of pages.slice(0, 4)) await request(t.app).get(page).expect(200);
    expect(cache.rendersUnderWay()).toBe(4);
    let fifthAnswered = false;
    const fifth = request(t.app)
      .get(pages[4]!)
      .then((res) => {
        fifthAnswered = true;
        return res;
      });
    await vi.waitFor(() => expect(queries).toBe(5));
    expect(fifthAnswered).toBe(false);
    expect(cache.stats().previous - stats.previous).toBe(4);
    open();
    expect((await fifth).status).toBe(200);
    await vi.waitFor(() => expect(cache.rendersUnderWay()).toBe(0));
    expect(cache.stats()).toMatchObject({ misses: stats.misses + 1, previous: stats.previous + 4 });
    await releaseLock(lock);
  });

  it("lets a render in the background that fails end its claim: the next view renders the page again", async () => {
    const page = "/cve-radar?kev=1";
    const old = withoutNonce(await request(t.app).get(page).expect(200));
    const lock = await takeLock();
    await publishUnderLock(lock, "cisa-kev");

    failing = 1;
    expect(withoutNonce(await request(t.app).get(page).expect(200))).toBe(old);
    await vi.waitFor(() => expect(cache.rendersUnderWay()).toBe(0));
    expect(failing).toBe(0);
    // Nothing was stored: the next view is given the old page again and renders the new one, this time for good.
    const stats = cache.stats();
    expect(withoutNonce(await request(t.app).get(page).expect(200))).toBe(old);
    await vi.waitFor(() => expect(cache.rendersUnderWay()).toBe(0));
    await request(t.app).get(page).expect(200);
    expect(cache.stats()).toMatchObject({ misses: stats.misses, hits: stats.hits + 2, previous: stats.previous + 1 });
    await releaseLock(lock);
  });
});

describe("the page cache on the hour", () => {
  let t: TestApp;
  const cache = new PageCache({ maxBytes: 16 * 1024 * 1024, level: 9 });
  // Pages depend on the hour of the clock ("now"): it is part of every document's key.
  let clock = new Date("2026-11-27T10:59:30Z");

  beforeAll(async () => {
    t = await createTestApp({ pageCache: cache, now: () => clock });
  });
  afterAll(() => t.close());

  it("answers a page's first view in a new hour with its copy of the hour before, of the same data, and renders the new hour's in the background", async () => {
    const page = "/cve-radar?kev=1";
    const old = withoutNonce(await request(t.app).get(page).expect(200));
    clock = new Date("2026-11-27T11:00:05Z");
    const stats = cache.stats();
    expect(withoutNonce(await request(t.app).get(page).expect(200))).toBe(old);
    expect(cache.stats()).toMatchObject({ misses: stats.misses, previous: stats.previous + 1 });
    await vi.waitFor(() => expect(cache.rendersUnderWay()).toBe(0));
    await request(t.app).get(page).expect(200);
    expect(cache.stats()).toMatchObject({ misses: stats.misses, hits: stats.hits + 2, previous: stats.previous + 1 });
  });

  it("renders a first view before its answer when the data moved as well", async () => {
    const page = "/ioc-radar";
    await request(t.app).get(page).expect(200);
    clock = new Date("2026-11-27T12:00:05Z");
    await publishSource(t, "tweetfeed");
    const stats = cache.stats();
    await request(t.app).get(page).expect(200);
    expect(cache.stats()).toMatchObject({ misses: stats.misses + 1, previous: stats.previous });
  });
});

describe("simultaneous first views of one document", () => {
  let t: TestApp;
  const cache = new PageCache({ maxBytes: 16 * 1024 * 1024, level: 9 });
  let queries = 0;
  let gate: Promise<void> = Promise.resolve();

  beforeAll(async () => {
    t = await createTestApp({
      pageCache: cache,
      // Every loader run waits for the gate, so that the whole burst is in before the first render ends.
      wrapRenderer: (renderer) => ({
        ...renderer,
        query: async (...args) => {
          queries += 1;
          await gate;
          return renderer.query(...args);
        },
      }),
    });
  });
  afterAll(() => t.close());

  /** Sends `count` requests for `path` and lets the renders go on once each has looked its document up. */
  async function burstWhileFirstRenders(path: string, count: number) {
    queries = 0;
    let open!: () => void;
    gate = new Promise((resolve) => (open = resolve));
    const before = cache.stats();
    const answers = Promise.all(Array.from({ length: count }, () => request(t.app).get(path)));
    await vi.waitFor(() => expect(cache.stats().misses - before.misses).toBe(count));
    open();
    const responses = await answers;
    const after = cache.stats();
    return { responses, misses: after.misses - before.misses, hits: after.hits - before.hits };
  }

  it("render a page once: the other requests wait for that render and are given its document", async () => {
    const { responses, misses, hits } = await burstWhileFirstRenders("/cve-radar?kev=1", 4);
    expect(responses.map((res) => res.status)).toEqual([200, 200, 200, 200]);
    expect(queries).toBe(1);
    expect({ misses, hits }).toEqual({ misses: 1, hits: 3 });
    // Each with its own nonce.
    expect(new Set(responses.map((res) => cspNonce(res.headers["content-security-policy"]))).size).toBe(4);
    expect(new Set(responses.map(withoutNonce)).size).toBe(1);
  });

  it("load a page's payload once", async () => {
    const { responses, misses } = await burstWhileFirstRenders(`/ioc-radar/_payload.json?${t.buildId}&type=domain`, 3);
    expect(responses.map((res) => res.status)).toEqual([200, 200, 200]);
    expect(queries).toBe(1);
    expect(misses).toBe(1);
    expect(new Set(responses.map((res) => res.text)).size).toBe(1);
  });

  it("stop waiting for a render that does not end (a client that does not read its answer holds it) and render for themselves", async () => {
    queries = 0;
    let open!: () => void;
    gate = new Promise((resolve) => (open = resolve));
    const answers = Promise.all(Array.from({ length: 3 }, () => request(t.app).get("/ioc-radar?type=url")));
    // The first render is held for good; the other two give up on it after a second.
    await vi.waitFor(() => expect(queries).toBe(3), { timeout: 5_000 });
    open();
    expect((await answers).map((res) => res.status)).toEqual([200, 200, 200]);
  });

  it("render for themselves when the render they waited for stored nothing (a 404 is not cached)", async () => {
    const { responses, misses } = await burstWhileFirstRenders("/cve-radar/CVE-1999-99999", 3);
    expect(responses.map((res) => res.status)).toEqual([404, 404, 404]);
    expect(queries).toBe(3);
    expect(misses).toBe(3);
  });

  it("are given the document of the data just replaced while the new data's render is under way", async () => {
    gate = Promise.resolve();
    const before = withoutNonce(await request(t.app).get("/cve-radar?kev=1").expect(200));
    await publishSource(t, "epss");
    queries = 0;
    let open!: () => void;
    gate = new Promise((resolve) => (open = resolve));
    const stats = cache.stats();
    const answered: request.Response[] = [];
    const all = Promise.all(
      Array.from({ length: 4 }, () =>
        request(t.app)
          .get("/cve-radar?kev=1")
          .then((res) => answered.push(res)),
      ),
    );
    // Three answers while the one render for the new data is held.
    await vi.waitFor(() => expect(answered).toHaveLength(3));
    expect(queries).toBe(1);
    expect(cache.stats().previous - stats.previous).toBe(3);
    for (const res of answered) {
      expect(res.status).toBe(200);
      expect(withoutNonce(res)).toBe(before);
    }
    open();
    await all;
    expect(answered[3]!.status).toBe(200);
    // Stored now: the next view is a plain hit.
    const hits = cache.stats().hits;
    await request(t.app).get("/cve-radar?kev=1").expect(200);
    expect(cache.stats()).toMatchObject({ hits: hits + 1, previous: stats.previous + 3 });
  });
});

describe("bad input gets a clear 4xx, never a 5xx", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ pageCache: null });
  });
  afterAll(() => t.close());

  it.each([
    "/api/v1/cves?q=a%00b",
    "/api/v1/cves/stats?q=%00",
    "/api/v1/cves/feed.atom?q=x%00",
    "/api/v1/cves/export.csv?q=x%00",
    "/api/v1/iocs?q=evil%00.com",
    "/api/v1/iocs/stats?malware=%1b[31m",
    "/api/v1/iocs/export.json?q=%7f",
  ])("%s: 400 naming the parameter with control characters", async (url) => {
    const res = await request(t.app).get(url).expect(400);
    expect(res.body.error.problems).toContainEqual({
      param: new URL(url, "http://x").searchParams.keys().next().value,
      message: "contains control characters",
    });
  });

  it.each(["/cve-radar?q=a%00b", "/ioc-radar?q=evil%00.com"])("%s: the page, with status 400 and the parameter named", async (url) => {
    const res = await request(t.app).get(url).expect(400);
    expect(res.headers["content-type"]).toMatch(/text\/html/);
    expect(res.text).toContain("contains control characters");
  });

  it("a page payload with a control character: 400 with the page's data and the problem", async () => {
    const res = await request(t.app).get(`/cve-radar/_payload.json?${t.buildId}&q=%00`).expect(400);
    expect(res.body.kind).toBe("data");
    expect(res.body.data.problems).toEqual([{ param: "q", message: "contains control characters" }]);
  });

  it.each(["//", "///", "//cve-radar", "/ioc-radar/%%%", "/cve-radar/%E0%A4%A", "/%"])("%s: the error screen with 404", async (path) => {
    const res = await request(t.app).get(path).expect(404);
    expect(res.headers["content-type"]).toMatch(/text\/html/);
    expect(res.text).toContain("Page Not Found");
  });

  it("says X-Frame-Options: DENY, as the CSP's frame-ancestors 'none' does", async () => {
    const res = await request(t.app).get("/").expect(200);
    expect(res.headers["x-frame-options"]).toBe("DENY");
    expect(res.headers["content-security-policy"]).toContain("frame-ancestors 'none'");
  });
});

/**
 * Holds the only serving slot with a lookup whose body never finishes
 * arriving (admission comes before the body is read), until released.
 */
function holdOnlySlot(origin: string): { release(): void } {
  const held = httpRequest(`${origin}/api/v1/iocs/lookup`, {
    method: "POST",
    agent: false,
    headers: { "content-type": "application/json", "content-length": "1000" },
  });
  held.on("error", () => {});
  held.write('{"text": "');
  return { release: () => held.destroy() };
}

describe("under a burst", () => {
  let t: TestApp;
  let origin: string;
  let close: () => Promise<void>;

  beforeAll(async () => {
    // One request at a time and a line of one: a burst must overflow it.
    t = await createTestApp({
      pageCache: null,
      env: { SERVE_CONCURRENCY: "1", SERVE_QUEUE_MAX: "1", RATE_LIMIT_PAGES_MAX: "1000", RATE_LIMIT_API_MAX: "1000" },
    });
    const server = t.app.listen(0, "127.0.0.1");
    await new Promise((resolve) => server.once("listening", resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    close = async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await t.close();
    };
  });
  afterAll(() => close());

  const burst = (path: string, count: number) => sendBurst(origin, path, count);

  /**
   * A burst while the only slot is taken: on an empty test database each
   * request takes a millisecond, so an unheld burst may never overflow. A
   * lookup whose body never finishes arriving holds the slot; a probe that is
   * turned away proves it is held.
   */
  async function burstWhileHeld(path: string, count: number) {
    const held = holdOnlySlot(origin);
    try {
      let probe = await burst(path, 1);
      for (let i = 0; i < 50 && probe[0]!.status !== 503; i++) probe = await burst(path, 1);
      expect(probe[0]!.status).toBe(503);
      return await burst(path, count);
    } finally {
      held.release();
    }
  }

  it("turns the overflow away with 503 and Retry-After: the error screen for people", async () => {
    const answers = await burstWhileHeld("/ioc-radar", 30);
    const shed = answers.filter((a) => a.status === 503);
    expect(shed.length).toBeGreaterThan(0);
    expect(answers.every((a) => a.status === 200 || a.status === 503)).toBe(true);
    for (const a of shed) {
      expect(a.headers["retry-after"]).toBe("2");
      expect(a.body).toContain("Something went wrong");
    }
  });

  it("… and JSON for API clients", async () => {
    const answers = await burstWhileHeld("/api/v1/cves", 30);
    const shed = answers.filter((a) => a.status === 503);
    expect(shed.length).toBeGreaterThan(0);
    for (const a of shed) {
      expect(a.headers["retry-after"]).toBe("2");
      expect(JSON.parse(a.body)).toEqual({ error: { statusCode: 503, message: expect.stringMatching(/busy/) } });
    }
  });

  it("answers the health checks while a burst is in the line", async () => {
    const [answers, health] = await Promise.all([burst("/cve-radar", 30), fetch(`${origin}/healthz`)]);
    expect(health.status).toBe(200);
    expect(answers.length).toBe(30);
  });
});

describe("a burst of views of a cached page", () => {
  let t: TestApp;
  let origin: string;
  let close: () => Promise<void>;

  beforeAll(async () => {
    // One request at a time and a line of one that nobody leaves by waiting too long.
    t = await createTestApp({
      pageCache: new PageCache({ maxBytes: 16 * 1024 * 1024, level: 9 }),
      env: { SERVE_CONCURRENCY: "1", SERVE_QUEUE_MAX: "1", SERVE_QUEUE_MS: "60000", RATE_LIMIT_PAGES_MAX: "1000", RATE_LIMIT_API_MAX: "1000" },
    });
    const server = t.app.listen(0, "127.0.0.1");
    await new Promise((resolve) => server.once("listening", resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    close = async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await t.close();
    };
  });
  afterAll(() => close());

  it("is served from the cache while every slot and the whole line are taken", async () => {
    await request(t.app).get("/cve-radar?kev=1").expect(200);
    // A lookup whose body never finishes arriving holds the only slot; an uncached page waits in the line.
    const held = holdOnlySlot(origin);
    const waiting = sendBurst(origin, "/ioc-radar?page=2", 1).catch(() => []);
    let probe = await sendBurst(origin, "/ioc-radar?page=3", 1);
    for (let i = 0; i < 50 && probe[0]!.status !== 503; i++) probe = await sendBurst(origin, `/ioc-radar?page=${i + 4}`, 1);
    expect(probe[0]!.status).toBe(503);

    const cached = await sendBurst(origin, "/cve-radar?kev=1", 30);
    expect(cached.map((a) => a.status)).toEqual(Array.from({ length: 30 }, () => 200));
    held.release();
    await waiting;
  });
});
