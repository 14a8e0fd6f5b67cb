import { createLogger } from "../logger";
import { loadPipelineConfig } from "./config";
import { ImportBusyError } from "./engine/lock";
import { loadCliEnv } from "../config/cli-env";
import { databaseTarget } from "../db/target";
import { openImportStore } from "./engine/store";
import { lowerImportPriority } from "./import-priority";
import type { ImportOutcome } from "./run";
import { syncSources } from "./sync";

/**
 * The scheduler's import process: imports the sources named on its command
 * line into DATABASE_URL or DATABASE_PATH, under the import lock, and reports each outcome
 * to its parent over IPC. Running apart from the web process, its parsing,
 * merging and memory never touch the event loop that serves pages.
 */
export type ImportProcessMessage = { kind: "outcome"; outcome: ImportOutcome } | { kind: "busy"; holder: string; source: string | null; startedAt: string };

/** Exit code of an import process that found another import running. */
export const IMPORT_BUSY_EXIT_CODE = 3;

async function main(): Promise<void> {
  // Pages first: the web process that forked this one keeps its CPU priority, the import yields to it.
  lowerImportPriority();
  if (!process.env.DATABASE_PATH && !process.env.DATABASE_URL) throw new Error("DATABASE_PATH or DATABASE_URL is required");
  const sources = process.argv.slice(2);
  const logger = createLogger(process.env.LOG_LEVEL ?? "info").child({ component: "import" });
  const config = loadPipelineConfig(process.env);
  const store = openImportStore(databaseTarget(loadCliEnv(process.env)));
  const abort = new AbortController();
  // The scheduler stops an import with SIGTERM: it aborts, and the merge rolls back.
  process.once("SIGTERM", () => abort.abort(new Error("stopped by the scheduler")));
  // A server that dies (kill -9) cannot send SIGTERM; its IPC channel closing says the same. An import
  // left running without it would hold the import lock with nobody to report its outcome to.
  process.once("disconnect", () => abort.abort(new Error("the server that started the import is gone")));
  const send = (message: ImportProcessMessage) => process.send?.(message);
  try {
    await syncSources(sources, { store, config, logger, signal: abort.signal, onOutcome: (outcome) => send({ kind: "outcome", outcome }) });
  } catch (error) {
    if (!(error instanceof ImportBusyError)) throw error;
    send({ kind: "busy", ...error.running });
    process.exitCode = IMPORT_BUSY_EXIT_CODE;
  } finally {
    await store.close();
  }
}

main().then(
  () => process.disconnect?.(),
  (error: unknown) => {
    process.stderr.write(`import process failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
    process.disconnect?.();
  },
);
