import { AsyncLocalStorage } from "node:async_hooks";
import type { Request, Response } from "express";
import { describe, expect, it } from "vitest";
import { eventLoopSlices } from "../../../server/http/event-loop-slices";

/** Keeps the thread busy, as a request's synchronous work does. */
function busy(ms: number) {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

const request = (path: string) => ({ path }) as Request;
const response = (destroyed = false) => ({ destroyed }) as Response;
const nextTurn = () => new Promise((done) => setImmediate(done));
async function settle(done: () => boolean) {
  while (!done()) await new Promise((resolve) => setTimeout(resolve, 1));
}

function slices(options: { sliceMs: number; maxWaitMs: number }) {
  const shed: string[] = [];
  const middleware = eventLoopSlices({
    ...options,
    bypass: (req) => req.path === "/healthz",
    shed: (req) => shed.push(req.path),
  });
  return { middleware, shed };
}

describe("request work in slices of the event loop", () => {
  it("answers a bypassed path (health) at once, and everything else on a later turn, in arrival order", async () => {
    const { middleware } = slices({ sliceMs: 10, maxWaitMs: 1_000 });
    const ran: string[] = [];
    for (const path of ["/a", "/b", "/healthz", "/c"]) middleware(request(path), response(), () => ran.push(path));
    expect(ran).toEqual(["/healthz"]);
    await nextTurn();
    expect(ran).toEqual(["/healthz", "/a", "/b", "/c"]);
  });

  it("lets the event loop turn between slices, so a timer (a socket read) is not kept behind the whole line", async () => {
    const { middleware } = slices({ sliceMs: 5, maxWaitMs: 10_000 });
    const events: string[] = [];
    for (let i = 0; i < 20; i += 1) {
      middleware(request(`/page/${i}`), response(), () => {
        // Set once the line is being worked through: it is due by the end of this 3 ms.
        if (i === 0) setTimeout(() => events.push("timer"), 0);
        busy(3);
        events.push(`page ${i}`);
      });
    }
    await settle(() => events.length === 21);
    const timerAt = events.indexOf("timer");
    // Each request takes 3 ms against a 5 ms slice: the first slice ends after two, and the timer fires before the last.
    expect(timerAt).toBeGreaterThan(0);
    expect(timerAt).toBeLessThan(20);
    expect(events.filter((event) => event !== "timer")).toEqual(Array.from({ length: 20 }, (_, i) => `page ${i}`));
  });

  it("drops a request whose client left while it waited, without doing its work", async () => {
    const { middleware, shed } = slices({ sliceMs: 10, maxWaitMs: 1_000 });
    const ran: string[] = [];
    middleware(request("/gone"), response(true), () => ran.push("/gone"));
    middleware(request("/here"), response(), () => ran.push("/here"));
    await nextTurn();
    expect(ran).toEqual(["/here"]);
    expect(shed).toEqual([]);
  });

  it("turns away a request that waited longer than the budget instead of starting it late", async () => {
    const { middleware, shed } = slices({ sliceMs: 1_000, maxWaitMs: 10 });
    const ran: string[] = [];
    for (let i = 0; i < 10; i += 1) {
      middleware(request(`/page/${i}`), response(), () => {
        busy(3);
        ran.push(`/page/${i}`);
      });
    }
    await nextTurn();
    // The first starts at once; the tenth has waited at least nine times 3 ms by its turn.
    expect(ran[0]).toBe("/page/0");
    expect(shed).toContain("/page/9");
    expect(ran.length + shed.length).toBe(10);
  });

  it("runs each request in its own asynchronous context (its request scope)", async () => {
    const { middleware } = slices({ sliceMs: 10, maxWaitMs: 1_000 });
    const storage = new AsyncLocalStorage<string>();
    const seen: Array<string | undefined> = [];
    for (const path of ["/a", "/b"]) storage.run(path, () => middleware(request(path), response(), () => seen.push(storage.getStore())));
    await nextTurn();
    expect(seen).toEqual(["/a", "/b"]);
  });
});
