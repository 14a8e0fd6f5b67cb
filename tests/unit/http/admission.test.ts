import { EventEmitter } from "node:events";
import type { Request, Response } from "express";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createAdmission, type ShedReason } from "../../../server/http/admission";

/** Just what the admission controller touches of a response: its events and `destroyed`. */
class FakeResponse extends EventEmitter {
  destroyed = false;
  writableFinished = false;
  finish() {
    this.writableFinished = true;
    this.emit("finish");
    this.emit("close");
  }
  leave() {
    this.destroyed = true;
    this.emit("close");
  }
}

function setup(options: { concurrency: number; queueBudgetMs: number; maxQueue: number }) {
  const shed: Array<{ res: FakeResponse; reason: ShedReason }> = [];
  const admission = createAdmission({ ...options, shed: (_req, res, reason) => shed.push({ res: res as unknown as FakeResponse, reason }) });
  const admitted: FakeResponse[] = [];
  const arrive = () => {
    const res = new FakeResponse();
    admission.middleware({} as Request, res as unknown as Response, () => admitted.push(res));
    return res;
  };
  return { admission, admitted, shed, arrive };
}

describe("admission control", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("works on a bounded number of requests at once and admits the next as one finishes", () => {
    const { admission, admitted, arrive } = setup({ concurrency: 2, queueBudgetMs: 1_000, maxQueue: 10 });
    const [a, , c] = [arrive(), arrive(), arrive()];
    expect(admitted).toHaveLength(2);
    expect(admission.stats()).toMatchObject({ active: 2, queued: 1 });
    a.finish();
    expect(admitted).toEqual([a, expect.anything(), c]);
    expect(admission.stats()).toMatchObject({ active: 2, queued: 0 });
  });

  it("turns a request away with a reason once the line is full", () => {
    const { shed, arrive } = setup({ concurrency: 1, queueBudgetMs: 60_000, maxQueue: 2 });
    arrive();
    arrive();
    arrive();
    const fourth = arrive();
    expect(shed).toEqual([{ res: fourth, reason: "queue-full" }]);
  });

  it("turns away a request that waited its whole budget in line, and never runs it", () => {
    const { admitted, shed, arrive } = setup({ concurrency: 1, queueBudgetMs: 500, maxQueue: 10 });
    const first = arrive();
    const waiting = arrive();
    vi.advanceTimersByTime(499);
    expect(shed).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(shed).toEqual([{ res: waiting, reason: "wait-too-long" }]);
    first.finish();
    expect(admitted).toEqual([first]);
  });

  it("turns a request away at once when the expected wait exceeds the budget", () => {
    const { admission, shed, arrive } = setup({ concurrency: 1, queueBudgetMs: 100, maxQueue: 1_000 });
    // Teach the controller that requests take 80 ms each.
    for (let i = 0; i < 200; i++) {
      const res = arrive();
      vi.advanceTimersByTime(80);
      res.finish();
    }
    arrive();
    arrive();
    expect(admission.expectedWaitMs()).toBeGreaterThan(100);
    const third = arrive();
    expect(shed.at(-1)).toEqual({ res: third, reason: "wait-too-long" });
  });

  it("does no work for a request whose client left before it reached the line, and never holds a slot for it", () => {
    const { admission, admitted, shed, arrive } = setup({ concurrency: 1, queueBudgetMs: 1_000, maxQueue: 10 });
    const admitGone = (res: FakeResponse) => admission.middleware({} as Request, res as unknown as Response, () => admitted.push(res));
    // Gone before it arrived: its response will never emit "finish" or "close" again.
    const gone = new FakeResponse();
    gone.destroyed = true;
    admitGone(gone);
    expect(admission.stats()).toMatchObject({ active: 0, queued: 0 });
    const next = arrive();
    expect(admitted).toEqual([next]);
    expect(shed).toEqual([]);
  });

  it("drops a waiting request whose client left, without doing any work for it", () => {
    const { admission, admitted, shed, arrive } = setup({ concurrency: 1, queueBudgetMs: 1_000, maxQueue: 10 });
    const first = arrive();
    const gone = arrive();
    const next = arrive();
    gone.leave();
    expect(admission.stats().queued).toBe(1);
    first.finish();
    expect(admitted).toEqual([first, next]);
    vi.advanceTimersByTime(5_000);
    expect(shed).toEqual([]);
  });
});
