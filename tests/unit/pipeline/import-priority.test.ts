import { execFileSync, spawn } from "node:child_process";
import { getPriority } from "node:os";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { IMPORT_NICENESS, lowerChildPriority } from "../../../server/pipeline/import-priority";
import { SCHED_IDLE, threadPolicies } from "../../helpers/scheduling";

const moduleUrl = new URL("../../../server/pipeline/import-priority.ts", import.meta.url).href;

/** Runs `body` in a node process of its own (a nice value cannot be lowered again without privileges) and returns every thread's nice value after it. */
function threadNicenessAfter(body: string, nice = 0): number[] {
  const script = `
    import { readdirSync } from "node:fs";
    import { getPriority, setPriority } from "node:os";
    const { lowerImportPriority } = await import(${JSON.stringify(moduleUrl)});
    if (${nice} > 0) for (const t of readdirSync("/proc/self/task")) setPriority(Number(t), ${nice});
    ${body}
    console.log(JSON.stringify(readdirSync("/proc/self/task").map((t) => getPriority(Number(t)))));`;
  const out = execFileSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
    cwd: resolve(import.meta.dirname, "../../.."),
    encoding: "utf8",
  });
  return JSON.parse(out.trim().split("\n").pop()!) as number[];
}

describe.runIf(process.platform === "linux")("the import process's CPU priority", () => {
  it("is lowered for every thread, those V8 and libuv started before the import's code included", () => {
    const threads = threadNicenessAfter("lowerImportPriority();");
    expect(threads.length).toBeGreaterThan(1);
    expect(new Set(threads)).toEqual(new Set([IMPORT_NICENESS]));
  });

  it("puts every thread under SCHED_IDLE, those started before the import's code and after it", async () => {
    const script = `
      const { lowerImportPriority } = await import(${JSON.stringify(moduleUrl)});
      const priority = lowerImportPriority();
      new (await import("node:worker_threads")).Worker("setTimeout(() => {}, 30_000)", { eval: true });
      setTimeout(() => console.log(priority), 200);
      setTimeout(() => process.exit(0), 30_000);`;
    const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
      cwd: resolve(import.meta.dirname, "../../.."),
      stdio: ["ignore", "pipe", "inherit"],
    });
    try {
      const said = await new Promise<string>((ready) => child.stdout.setEncoding("utf8").once("data", ready));
      expect(said.trim()).toBe("SCHED_IDLE");
      const policies = threadPolicies(child.pid!);
      expect(policies.length).toBeGreaterThan(2);
      expect(new Set(policies)).toEqual(new Set([SCHED_IDLE]));
    } finally {
      child.kill();
    }
  });

  it("is never raised: a process already nicer than that keeps its value", () => {
    expect(new Set(threadNicenessAfter("lowerImportPriority(10);", 15))).toEqual(new Set([15]));
  });

  it("is lowered for a child process by its parent as soon as it exists, and never raised", async () => {
    const child = spawn(process.execPath, ["-e", "setTimeout(() => {}, 30_000)"], { stdio: "ignore" });
    try {
      lowerChildPriority(child.pid, 15);
      expect(getPriority(child.pid)).toBe(15);
      lowerChildPriority(child.pid, 10);
      expect(getPriority(child.pid)).toBe(15);
    } finally {
      child.kill();
    }
    await new Promise((done) => child.once("exit", done));
    // A child that already ended: nothing to lower, and no error.
    expect(() => lowerChildPriority(child.pid, 15)).not.toThrow();
    expect(() => lowerChildPriority(undefined)).not.toThrow();
  });
});
