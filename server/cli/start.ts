import { parseArgs, type ParseArgsConfig } from "node:util";
import { ConfigError, loadCliEnv, type CliEnv } from "../config/cli-env";

const HELP = { help: { type: "boolean", short: "h" } } as const;

/**
 * What every CLI does first: parse its flags, print its usage for --help,
 * and check the environment it shares with the server. A bad flag or a bad
 * variable stops it with exit code 2 and the usage.
 */
export function startCli<const T extends NonNullable<ParseArgsConfig["options"]>>(usage: string, options: T, { positionals = false } = {}) {
  const fail = (message: string): never => {
    console.error(`${message}\n\n${usage}`);
    process.exit(2);
  };
  const config = { options: { ...options, ...HELP }, allowPositionals: positionals };
  let parsed: ReturnType<typeof parseArgs<typeof config>>;
  try {
    parsed = parseArgs(config);
  } catch (error) {
    return fail((error as Error).message);
  }
  if ((parsed.values as { help?: boolean }).help) {
    console.log(usage);
    process.exit(0);
  }
  let env: CliEnv;
  try {
    env = loadCliEnv(process.env);
  } catch (error) {
    return fail(error instanceof ConfigError ? error.message : String(error));
  }
  return { values: parsed.values, positionals: parsed.positionals, env, fail };
}
