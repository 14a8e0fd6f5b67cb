import { fork } from "node:child_process";
import type { Logger } from "pino";
import { entryFile } from "../runtime/entry-file";
import { ImportBusyError } from "./engine/lock";
import { IMPORT_HEAP_FLAGS } from "./import-heap";
import { lowerChildPriority } from "./import-priority";
import type { ImportProcessMessage } from "./import-process";
import type { ImportOutcome } from "./run";
import { syncSources, type SyncOptions } from "./sync";

/**
 * Runs one source's import and resolves with its outcome; rejects with
 * ImportBusyError when another import holds the lock. Aborting the signal
 * stops the import (it rolls back).
 */
export type ImportRunner = (source: string, signal: AbortSignal) => Promise<ImportOutcome>;

/** In this process: what the CLI does (it is a process of its own already), and what scheduling tests use. */
export function inProcessRunner(options: Omit<SyncOptions, "signal">): ImportRunner {
  return async (source, signal) => {
    const [outcome] = await syncSources([source], { ...options, signal });
    if (!outcome) throw new Error(`no outcome for ${source}`);
    return outcome;
  };
}

export interface ChildProcessRunnerOptions {
  /** The SQLite file (absolute), or null when DATABASE_URL in `env` names a PostgreSQL database. */
  databasePath: string | null;
  /** The environment the pipeline reads (SOURCE_*, SYNC_*, proxies…, DATABASE_URL); DATABASE_PATH is set from databasePath. */
  env: NodeJS.ProcessEnv;
  logger: Logger;
}

/**
 * In a child process of its own (server/pipeline/import-process.ts): the
 * server's scheduler runs imports so, keeping their CPU and memory away from
 * the event loop that serves pages. The child's log lines go to the same
 * output as the server's.
 */
export function childProcessRunner({ databasePath, env, logger }: ChildProcessRunnerOptions): ImportRunner {
  const entry = entryFile(import.meta.url, "./import-process.ts", "import-process");
  return (source, signal) =>
    new Promise<ImportOutcome>((resolve, reject) => {
      const child = fork(entry.url, [source], {
        env: databasePath === null ? env : { ...env, DATABASE_PATH: databasePath },
        execArgv: [...entry.execArgv, ...IMPORT_HEAP_FLAGS],
        stdio: ["ignore", "inherit", "inherit", "ipc"],
      });
      lowerChildPriority(child.pid);
      let outcome: ImportOutcome | null = null;
      let busy: ImportBusyError | null = null;
      const stop = () => child.kill("SIGTERM");
      signal.addEventListener("abort", stop, { once: true });
      child.on("message", (message: ImportProcessMessage) => {
        if (message.kind === "outcome") outcome = message.outcome;
        else busy = new ImportBusyError({ holder: message.holder, source: message.source, startedAt: message.startedAt });
      });
      child.once("error", reject);
      child.once("exit", (code, exitSignal) => {
        signal.removeEventListener("abort", stop);
        if (busy) return reject(busy);
        if (outcome) return resolve(outcome);
        logger.error({ source, code, signal: exitSignal }, "the import process ended without an outcome");
        reject(new Error(`the import process for ${source} ended (${exitSignal ?? `exit code ${code}`}) without an outcome`));
      });
    });
}
