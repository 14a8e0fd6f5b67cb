import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer } from "node:net";

export interface ChildServer {
  /** `http://127.0.0.1:<port>` */
  url: string;
  pid: number;
  /** What the process wrote to stdout and stderr so far (its warnings and errors). */
  output(): string;
  /** CPU seconds (user + system, every thread) the process has used so far; null where /proc is missing. */
  cpuSeconds(): number | null;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves once it exited. */
  stop(graceMs?: number): Promise<void>;
}

/** A TCP port on the loopback interface that nothing listens on right now. */
export async function freeLoopbackPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((done) => probe.listen(0, "127.0.0.1", done));
  const { port } = probe.address() as { port: number };
  await new Promise((done) => probe.close(done));
  return port;
}

const clockTicksPerSecond = (() => {
  try {
    return Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** utime + stime of a Linux process, from /proc/<pid>/stat (fields 14 and 15, after the parenthesised name). */
function processCpuSeconds(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / clockTicksPerSecond;
  } catch {
    return null;
  }
}

/**
 * Starts `command` as a child process listening on 127.0.0.1:`port` and waits
 * until `readyPath` answers 2xx. The child gets only the variables given here
 * and PATH/HOME, so nothing from the caller's environment changes what is
 * measured.
 */
export async function startChildServer(options: {
  name: string;
  command: readonly [string, ...string[]];
  cwd: string;
  env: Record<string, string>;
  port: number;
  readyPath: string;
  startTimeoutMs?: number;
}): Promise<ChildServer> {
  const [file, ...args] = options.command;
  const child: ChildProcess = spawn(file, args, {
    cwd: options.cwd,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? options.cwd, ...options.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((done) => child.once("exit", () => done()));
  const url = `http://127.0.0.1:${options.port}`;
  const stop = async (graceMs = 15_000) => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill("SIGTERM");
    const killer = setTimeout(() => child.kill("SIGKILL"), graceMs);
    await exited;
    clearTimeout(killer);
  };

  const deadline = Date.now() + (options.startTimeoutMs ?? 120_000);
  let last = "no attempt yet";
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`${options.name} exited (${child.exitCode ?? child.signalCode}) before it answered ${options.readyPath}:\n${output}`);
    }
    if (Date.now() > deadline) {
      await stop(0);
      throw new Error(`${options.name} did not answer ${url}${options.readyPath} in time (last attempt: ${last}); its output:\n${output}`);
    }
    try {
      const res = await fetch(`${url}${options.readyPath}`, { signal: AbortSignal.timeout(5_000) });
      await res.arrayBuffer();
      if (res.ok) break;
      last = `HTTP ${res.status}`;
    } catch (error) {
      last = error instanceof Error ? error.message : String(error);
    }
    await new Promise((done) => setTimeout(done, 200));
  }

  const pid = child.pid ?? 0;
  return { url, pid, output: () => output, cpuSeconds: () => processCpuSeconds(pid), stop };
}
