import { spawn, type ChildProcess } from "node:child_process";
import { createServer } from "node:net";
import { SERVER_NODE_FLAGS } from "../../server/runtime/server-heap";
import { PROJECT_ROOT } from "./paths";

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export interface ServerProcess {
  child: ChildProcess;
  url: string;
  output(): string;
  exited: Promise<number | null>;
}

export interface ServerProcessOptions {
  /** Run the compiled server (dist/server/index.js, as production does) instead of the sources through tsx. */
  built?: boolean;
  /**
   * Lead a process group of its own, so that killGroup() ends the server and its import process
   * together, as a lost container or machine would.
   */
  group?: boolean;
}

/** Starts `server/index.ts` (production mode, built dist/) as a real process on a loopback port. */
export function startServerProcess(env: Record<string, string>, options: ServerProcessOptions = {}): ServerProcess {
  const args = options.built ? [...SERVER_NODE_FLAGS, "dist/server/index.js"] : ["--import", "tsx", "server/index.ts"];
  const child = spawn(process.execPath, args, {
    cwd: PROJECT_ROOT,
    env: { PATH: process.env.PATH ?? "", NODE_ENV: "production", HOST: "127.0.0.1", LOG_LEVEL: "info", SYNC_ENABLED: "false", ...env },
    stdio: ["ignore", "pipe", "pipe"],
    detached: options.group ?? false,
  });
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return { child, url: `http://127.0.0.1:${env.PORT ?? "3000"}`, output: () => output, exited };
}

/** Waits for /healthz; start-up speed is not what the callers test, so the wait is generous (a minute). */
export async function waitForHealthy(url: string, attempts = 600): Promise<void> {
  for (let i = 0; i < attempts; i++) {
    try {
      if ((await fetch(`${url}/healthz`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${url} never became healthy`);
}
