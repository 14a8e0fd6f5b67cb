import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

/** The repository root: the server is started from here, as `npm run serve` does. */
export const PROJECT_ROOT = resolve(import.meta.dirname, "../../..");
const CLIENT_MANIFEST = join(PROJECT_ROOT, "dist/client/.vite/manifest.json");

export interface E2eServer {
  /** `http://127.0.0.1:<port>` */
  url: string;
  port: number;
  /** The server's SQLite file (fresh, in a temporary directory, migrated at start-up). */
  databasePath: string;
  /** The build id the server announces in `latest.json` (and embeds in every page). */
  buildId: string;
  /** Everything the process wrote to stdout and stderr so far. */
  output(): string;
  /** SIGTERM, then wait for the exit; removes the temporary database directory. */
  close(): Promise<void>;
}

/** A TCP port on the loopback interface that nothing listens on right now. */
export async function freeLoopbackPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((done) => probe.listen(0, "127.0.0.1", done));
  const { port } = probe.address() as { port: number };
  await new Promise((done) => probe.close(done));
  return port;
}

async function waitForHealthz(url: string, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + 60_000;
  let last = "no attempt";
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`The server exited (${child.exitCode ?? child.signalCode}) before it was healthy:\n${output()}`);
    }
    try {
      const res = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(5_000) });
      if (res.ok) return;
      last = `HTTP ${res.status}`;
    } catch (error) {
      last = error instanceof Error ? `${error.message} ${String((error as { cause?: unknown }).cause ?? "")}` : String(error);
    }
    await new Promise((done) => setTimeout(done, 100));
  }
  throw new Error(`${url}/healthz never answered (last attempt: ${last}); server output:\n${output()}`);
}

/**
 * Starts the real production server (`node --import tsx server/index.ts`,
 * NODE_ENV=production, reading dist/) on a free loopback port with a fresh
 * SQLite database and the feed scheduler off, plus the given variables (which
 * may override those), and waits for `/healthz`.
 */
export async function startE2eServer(env: Record<string, string> = {}): Promise<E2eServer> {
  if (!existsSync(CLIENT_MANIFEST)) {
    throw new Error("No client build in dist/: run `npm run build` before the e2e tests (`npm test` does).");
  }
  const dir = mkdtempSync(join(tmpdir(), "threat-radar-e2e-"));
  const port = await freeLoopbackPort();
  const child = spawn(process.execPath, ["--import", "tsx", "server/index.ts"], {
    cwd: PROJECT_ROOT,
    env: {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? dir,
      NODE_ENV: "production",
      HOST: "127.0.0.1",
      PORT: String(port),
      DATABASE_PATH: join(dir, "e2e.sqlite"),
      LOG_LEVEL: "warn",
      // The feed scheduler would start downloading from the internet at once; the e2e suite stays on loopback.
      SYNC_ENABLED: "false",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  let closing = false;
  const exited = new Promise<void>((done) => {
    child.once("exit", (code, signal) => {
      // A server that dies under a running test explains the connection errors that follow.
      if (!closing) process.stderr.write(`[e2e] the server on port ${port} exited unexpectedly (code ${code}, signal ${signal}):\n${output}\n`);
      done();
    });
  });
  const url = `http://127.0.0.1:${port}`;
  const databasePath = env.DATABASE_PATH ?? join(dir, "e2e.sqlite");
  const cleanUp = () => rmSync(dir, { recursive: true, force: true });

  try {
    await waitForHealthz(url, child, () => output);
  } catch (error) {
    closing = true;
    child.kill("SIGKILL");
    await exited;
    cleanUp();
    throw error;
  }
  const latest = (await (await fetch(`${url}/_app/builds/latest.json`)).json()) as { id: string };

  return {
    url,
    port,
    databasePath,
    buildId: latest.id,
    output: () => output,
    async close() {
      closing = true;
      if (child.exitCode === null && child.signalCode === null) {
        child.kill("SIGTERM");
        const killer = setTimeout(() => child.kill("SIGKILL"), 15_000);
        await exited;
        clearTimeout(killer);
      }
      cleanUp();
    },
  };
}
