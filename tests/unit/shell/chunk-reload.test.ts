import { describe, expect, it, vi } from "vitest";
import { reloadOnceOnChunkFailure } from "../../../client/runtime/chunk-reload";

function environment(start: number) {
  const store = new Map<string, string>();
  let now = start;
  return {
    env: {
      storage: { getItem: (key: string) => store.get(key) ?? null, setItem: (key: string, value: string) => void store.set(key, value) },
      reload: vi.fn(),
      now: () => now,
    },
    advance: (ms: number) => (now += ms),
  };
}

const failing = () => Promise.reject(new TypeError("Failed to fetch dynamically imported module"));

describe("reloadOnceOnChunkFailure", () => {
  it("reloads the page once when a chunk fails to load", async () => {
    const { env } = environment(1_000_000);
    void reloadOnceOnChunkFailure(env)(failing)();
    await vi.waitFor(() => expect(env.reload).toHaveBeenCalledTimes(1));
  });

  it("does not reload a second time within 10 s, and rethrows instead", async () => {
    const { env, advance } = environment(1_000_000);
    const wrap = reloadOnceOnChunkFailure(env);
    void wrap(failing)();
    await vi.waitFor(() => expect(env.reload).toHaveBeenCalledTimes(1));
    advance(9_999);
    await expect(wrap(failing)()).rejects.toThrow("dynamically imported module");
    expect(env.reload).toHaveBeenCalledTimes(1);
  });

  it("may reload again once the guard has expired", async () => {
    const { env, advance } = environment(1_000_000);
    const wrap = reloadOnceOnChunkFailure(env);
    void wrap(failing)();
    await vi.waitFor(() => expect(env.reload).toHaveBeenCalledTimes(1));
    advance(10_001);
    void wrap(failing)();
    await vi.waitFor(() => expect(env.reload).toHaveBeenCalledTimes(2));
  });

  it("passes successful loads through untouched", async () => {
    const { env } = environment(0);
    await expect(reloadOnceOnChunkFailure(env)(() => Promise.resolve("module"))()).resolves.toBe("module");
    expect(env.reload).not.toHaveBeenCalled();
  });
});
