import type { Logger } from "pino";
import { emptyCounts, type ImportCounts, type Importer, type MergeContext } from "../engine/importer";
import type { ImportStore } from "../engine/store";
import { publish, type FileState } from "./records";
import type { ReadState } from "./read";

export interface MergeInput<R> {
  store: ImportStore;
  importer: Importer<R>;
  source: string;
  now: Date;
  log: Logger;
  signal: AbortSignal;
  /** performance.now() when the run began: the published duration counts up to the commit. */
  started: number;
  records: number;
  rejected: number;
  absenceMeansWithdrawn: boolean;
  state: ReadState;
  locationKey: string;
  files: ReadonlyMap<string, FileState>;
}

/**
 * Lets the importer merge the staged records into the served tables, in one
 * transaction that also publishes the run's outcome, so readers see both at
 * once; then refreshes the planner's statistics of the tables it changed
 * enough to move them.
 */
export async function mergeAndPublish<R>(input: MergeInput<R>): Promise<{ counts: ImportCounts; recordCount: number }> {
  const { store, importer, source, now, signal, records, state } = input;
  const counts = emptyCounts();
  counts.rejected = input.rejected;
  let recordCount = 0;
  let committed = false;
  let stale: string[] = [];
  const mergeCtx: MergeContext = {
    source,
    now,
    stamp: now.toISOString(),
    logger: input.log,
    store,
    counts,
    records,
    absenceMeansWithdrawn: input.absenceMeansWithdrawn,
    async commit(work) {
      if (committed) throw new Error("an importer's merge commits once");
      committed = true;
      await store.db.transaction().execute(async (trx) => {
        await work(trx);
        stale = await store.dialect.staleTables(trx);
        signal.throwIfAborted();
        recordCount = await importer.countRecords(trx, source);
        await publish(trx, {
          source,
          now,
          counts,
          durationMs: Math.round(performance.now() - input.started),
          recordCount,
          records,
          cursor: state.cursor,
          newest: state.newest,
          published: state.published,
          locationKey: input.locationKey,
          completeList: importer.completeList ?? false,
          files: input.files,
        });
      });
    },
  };
  await importer.merge(mergeCtx);
  if (!committed) throw new Error(`the ${source} importer's merge did not commit`);
  await store.dialect.analyzeStale(store.db, stale);
  return { counts, recordCount };
}
