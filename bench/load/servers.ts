import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";
import { freeLoopbackPort, startChildServer, type ChildServer } from "./child-server";
import { SERVER_NODE_FLAGS } from "../../server/runtime/server-heap";

export const PROJECT_ROOT = resolve(import.meta.dirname, "../..");
const CLIENT_BUILD_INFO = join(PROJECT_ROOT, "dist/client/.vite/build.json");
const SERVER_BUILD = join(PROJECT_ROOT, "dist/server");

/**
 * Every rate limit of the server, raised far beyond what the benchmark sends:
 * all its requests come from one address, and it measures serving, not the
 * limiter's 429s.
 */
export const BENCH_RATE_LIMITS = {
  RATE_LIMIT_PAGES_MAX: "1000000000",
  RATE_LIMIT_API_MAX: "1000000000",
  RATE_LIMIT_LOOKUP_MAX: "1000000000",
} as const;

/** How the production server is started: node on its compiled entry, as `npm run serve` does. */
export function productionServerCommand(): [string, ...string[]] {
  return [process.execPath, ...SERVER_NODE_FLAGS, "dist/server/index.js"];
}

/** Whether `npm run build` has written a production build into dist/ (current or not). */
export function hasProductionBuild(): boolean {
  return existsSync(CLIENT_BUILD_INFO) && existsSync(SERVER_BUILD);
}

/** A source file edited since the build, if any: a benchmark would measure old code (or fail on a migration it lacks). */
function sourceNewerThanBuild(): string | null {
  const built = statSync(join(SERVER_BUILD, "index.js")).mtimeMs;
  for (const folder of ["server", "shared", "client"]) {
    for (const entry of readdirSync(join(PROJECT_ROOT, folder), { recursive: true, withFileTypes: true })) {
      const path = join(entry.parentPath, entry.name);
      if (entry.isFile() && statSync(path).mtimeMs > built) return relative(PROJECT_ROOT, path);
    }
  }
  return null;
}

/** The build id the production build embeds in every page and payload URL; throws when there is no build, or an older one than the sources. */
export function readBuildId(): string {
  if (!hasProductionBuild()) throw new Error("No production build in dist/: run `npm run build` first.");
  const edited = sourceNewerThanBuild();
  if (edited) throw new Error(`The production build in dist/ is older than ${edited}: run \`npm run build\` first.`);
  return (JSON.parse(readFileSync(CLIENT_BUILD_INFO, "utf8")) as { id: string }).id;
}

/**
 * The production server (NODE_ENV=production, serving dist/) on a free
 * loopback port, reading `databasePath` (a SQLite file, or a `postgres://` URL
 * for DATABASE_URL): feed syncing off (nothing leaves the
 * machine and no import competes with the load), warnings and errors logged
 * only, rate limits out of the way.
 */
export async function startProductionServer(databasePath: string): Promise<ChildServer> {
  readBuildId();
  const port = await freeLoopbackPort();
  return startChildServer({
    name: "the production server",
    command: productionServerCommand(),
    cwd: PROJECT_ROOT,
    port,
    readyPath: "/healthz",
    // Start-up migrates the database first, which can take a while on a full import.
    startTimeoutMs: 300_000,
    env: {
      NODE_ENV: "production",
      HOST: "127.0.0.1",
      PORT: String(port),
      ...(/^postgres(ql)?:\/\//.test(databasePath) ? { DATABASE_URL: databasePath } : { DATABASE_PATH: databasePath }),
      SYNC_ENABLED: "false",
      LOG_LEVEL: "warn",
      ...BENCH_RATE_LIMITS,
    },
  });
}

/** The static ceiling (static-ceiling-server.ts) serving `body` as `contentType` on a free loopback port. */
export async function startStaticCeiling(body: Buffer, contentType: string): Promise<ChildServer> {
  const dir = mkdtempSync(join(tmpdir(), "threat-radar-ceiling-"));
  const bodyFile = join(dir, "page.html");
  writeFileSync(bodyFile, body);
  const port = await freeLoopbackPort();
  try {
    const server = await startChildServer({
      name: "the static ceiling",
      command: [process.execPath, "--import", "tsx", "bench/load/static-ceiling-server.ts"],
      cwd: PROJECT_ROOT,
      port,
      readyPath: "/",
      env: { NODE_ENV: "production", PORT: String(port), CEILING_BODY_FILE: bodyFile, CEILING_CONTENT_TYPE: contentType },
    });
    return {
      ...server,
      async stop(graceMs) {
        await server.stop(graceMs);
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}
