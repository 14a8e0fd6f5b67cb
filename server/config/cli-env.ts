import { ConfigError, loadEnv, type Env } from "./env";

export type CliEnv = Pick<Env, "DATABASE_PATH" | "DATABASE_URL" | "DATABASE_POOL_SIZE" | "LOG_LEVEL">;

/**
 * The server's variables the CLIs read (DATABASE_PATH or DATABASE_URL, LOG_LEVEL), checked
 * against the server's own schema so they mean the same and default the same
 * (./data/threat-radar.sqlite, info). The server's other variables are not
 * the CLIs' business and are left out of the check. Throws a ConfigError
 * naming each bad variable.
 */
export function loadCliEnv(source: NodeJS.ProcessEnv = process.env): CliEnv {
  const env = loadEnv({
    DATABASE_PATH: source.DATABASE_PATH,
    DATABASE_URL: source.DATABASE_URL,
    DATABASE_POOL_SIZE: source.DATABASE_POOL_SIZE,
    LOG_LEVEL: source.LOG_LEVEL,
  });
  return { DATABASE_PATH: env.DATABASE_PATH, DATABASE_URL: env.DATABASE_URL, DATABASE_POOL_SIZE: env.DATABASE_POOL_SIZE, LOG_LEVEL: env.LOG_LEVEL };
}

export { ConfigError };
