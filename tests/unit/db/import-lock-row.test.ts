import { spawnSync } from "node:child_process";
import { hostname } from "node:os";
import { describe, expect, it } from "vitest";
import { LOCK_STALE_MS, lockAbandoned } from "../../../server/db/import-lock-row";
import { processStartedAt } from "../../../server/runtime/process-liveness";

const NOW = Date.now();
const iso = (ms: number) => new Date(ms).toISOString();
const here = (pid: number) => `pid ${pid} on ${hostname()}`;

describe("an import lock's holder", () => {
  it("on this host and alive, keeps the lock however late its heartbeat (a starved import)", () => {
    const row = { holder: here(process.pid), started_at: iso(NOW - 60_000), heartbeat_at: iso(NOW - 60 * 60_000) };
    expect(lockAbandoned(row, NOW)).toBe(false);
  });

  it("on this host, is gone when its process is (killed without releasing the lock)", () => {
    const ended = spawnSync(process.execPath, ["-e", ""]).pid;
    const row = { holder: here(ended), started_at: iso(NOW), heartbeat_at: iso(NOW) };
    expect(lockAbandoned(row, NOW)).toBe(true);
  });

  it("on this host, is gone when its pid names a process started after the lock was taken (the pid was reused)", () => {
    const row = { holder: here(process.pid), started_at: iso(processStartedAt(process.pid)! - 2 * LOCK_STALE_MS), heartbeat_at: iso(NOW) };
    expect(lockAbandoned(row, NOW)).toBe(true);
  });

  it("elsewhere, is gone once its heartbeat is older than the limit", () => {
    const holder = "pid 1 on another-host.example";
    expect(lockAbandoned({ holder, started_at: iso(NOW), heartbeat_at: iso(NOW - LOCK_STALE_MS + 1_000) }, NOW)).toBe(false);
    expect(lockAbandoned({ holder, started_at: iso(NOW), heartbeat_at: iso(NOW - LOCK_STALE_MS - 1_000) }, NOW)).toBe(true);
  });
});

describe("a process's start time", () => {
  it("is read from /proc to the second", () => {
    const started = processStartedAt(process.pid)!;
    const uptime = process.uptime() * 1000;
    expect(Math.abs(NOW - uptime - started)).toBeLessThan(2_000);
  });

  it("is unknown for a process that does not exist", () => {
    expect(processStartedAt(spawnSync(process.execPath, ["-e", ""]).pid!)).toBeNull();
  });
});
