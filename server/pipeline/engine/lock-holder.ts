import { hostname } from "node:os";

export interface LockHolder {
  holder: string;
  source: string | null;
  startedAt: string;
}

/** Another import runs: who, what and since when, for the message that says so. */
export class ImportBusyError extends Error {
  override name = "ImportBusyError";
  constructor(readonly running: LockHolder) {
    super(`another import is running: ${running.holder}, ${running.source ?? "starting"}, since ${running.startedAt}`);
  }
}

export interface ImportLock {
  /** Says which source is being imported now (shown to whoever finds the lock taken). */
  setSource(source: string | null): Promise<void>;
  release(): Promise<void>;
}

/** This process, as the lock names it. */
export function lockHolderName(): string {
  return `pid ${process.pid} on ${hostname()}`;
}
