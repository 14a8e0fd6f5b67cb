import { Piscina } from "piscina";
import { ClientGoneError, currentRequest } from "../runtime/request-scope";
import { entryFile } from "../runtime/entry-file";
import type { ExtractResult, ExtractTask } from "./extract-worker";

export type Extract = (text: string, limit: number) => Promise<ExtractResult>;

/**
 * Bulk lookups extract indicators from up to a megabyte of pasted text: a
 * second of CPU in the worst case. On the main thread that second would
 * stall every other request and the health checks, so it runs on one worker
 * thread, which exits when lookups stop coming.
 */
export function createExtractPool(): { extract: Extract; close(): Promise<void> } {
  const worker = entryFile(import.meta.url, "./extract-worker.ts", "extract-worker");
  const pool = new Piscina<ExtractTask, ExtractResult>({
    filename: worker.url.href,
    execArgv: worker.execArgv,
    minThreads: 0,
    maxThreads: 1,
    idleTimeout: 60_000,
  });
  return {
    async extract(text, limit) {
      const signal = currentRequest()?.signal;
      try {
        return await pool.run({ text, limit }, signal ? { signal } : {});
      } catch (error) {
        if (signal?.aborted) throw new ClientGoneError();
        throw error;
      }
    },
    close: () => pool.destroy(),
  };
}
