import { execFileSync, spawn } from "node:child_process";
import { cpSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { SERVER_NODE_FLAGS } from "../../../server/runtime/server-heap";
import { PROJECT_ROOT } from "../../helpers/paths";
import { freePort, waitForHealthy } from "../../helpers/server-process";

// `npm start` builds into dist/, which other test files read while they run: it runs in a
// copy of the project (sources copied, node_modules linked) so its build cannot disturb them.
const copy = mkdtempSync(join(tmpdir(), "threat-radar-npm-start-"));
for (const entry of ["server", "client", "shared", "public", "scripts", "package.json", "vite.config.ts", "tsconfig.json"]) {
  cpSync(join(PROJECT_ROOT, entry), join(copy, entry), { recursive: true });
}
symlinkSync(join(PROJECT_ROOT, "node_modules"), join(copy, "node_modules"));
afterAll(() => rmSync(copy, { recursive: true, force: true }));

function childrenOf(pid: number): Array<{ pid: number; args: string }> {
  let out: string;
  try {
    out = execFileSync("ps", ["-o", "pid=,args=", "--ppid", String(pid)], { encoding: "utf8" });
  } catch {
    return []; // ps exits 1 when there are none
  }
  return out
    .trim()
    .split("\n")
    .filter(Boolean)
    .map((line) => {
      const [, id, args] = /^\s*(\d+)\s+(.*)$/.exec(line) ?? [];
      return { pid: Number(id), args: args ?? "" };
    });
}

/** Processes whose working directory is `dir` or below it. */
function processesIn(dir: string): number[] {
  return readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        return readlinkSync(`/proc/${pid}/cwd`).startsWith(dir);
      } catch {
        return false; // gone meanwhile, or not ours to inspect
      }
    })
    .map(Number);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe("npm start", () => {
  it("builds, runs node on the compiled server directly under npm, and stops with everything on SIGTERM to npm", async () => {
    const port = await freePort();
    const npm = spawn("npm", ["start"], {
      cwd: copy,
      env: {
        PATH: process.env.PATH ?? "",
        HOME: process.env.HOME ?? copy,
        HOST: "127.0.0.1",
        PORT: String(port),
        DATABASE_PATH: join(copy, "data/db.sqlite"),
        SYNC_ENABLED: "false",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    npm.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    npm.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => npm.on("exit", (code) => resolve(code)));

    try {
      // The build runs first: on a busy machine that takes a while, so the wait is longer than the helper's default.
      // A failed build ends npm start: that ends the wait too.
      await Promise.race([
        waitForHealthy(`http://127.0.0.1:${port}`, 1_800),
        exited.then((code) => Promise.reject(new Error(`npm start exited with ${code} before the server was healthy`))),
      ]);
    } catch (error) {
      npm.kill("SIGKILL");
      throw new Error(`${(error as Error).message}; npm start said:\n${output}`, { cause: error });
    }
    // The shell npm runs the script in has exec'd node: node is npm's own child, and no tsx.
    const children = childrenOf(npm.pid!);
    expect(children).toHaveLength(1);
    const server = children[0]!;
    expect(server.args).toBe(["node", ...SERVER_NODE_FLAGS, "dist/server/index.js"].join(" "));
    expect(readFileSync(`/proc/${server.pid}/environ`, "utf8").split("\0")).toContain("NODE_ENV=production");

    npm.kill("SIGTERM");
    expect(await exited).toBe(0);
    expect(output).toContain('"msg":"stopped"');
    expect(alive(server.pid)).toBe(false);
    // Nothing started from the copy is left (the build's processes included).
    expect(processesIn(copy)).toEqual([]);
    await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();
  }, 300_000);
});
