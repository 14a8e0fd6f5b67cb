import { createHash } from "node:crypto";
import type { Kysely } from "kysely";
import type { Logger } from "pino";
import type { Database } from "../../db/schema";
import type { StagingOut, StagingTable } from "./staging";
import type { ImportStore } from "./store";

export interface ImportCounts {
  added: number;
  updated: number;
  unchanged: number;
  rejected: number;
  removed: number;
}

export function emptyCounts(): ImportCounts {
  return { added: 0, updated: 0, unchanged: 0, rejected: 0, removed: 0 };
}

/** What an importer's merge is given. */
export interface MergeContext {
  source: string;
  /** The import's clock, and its ISO form (this instance's "listed since" times). */
  now: Date;
  stamp: string;
  logger: Logger;
  store: ImportStore;
  /** The merge fills these in: added, updated, unchanged and removed rows. */
  counts: ImportCounts;
  /** Records the parsers accepted this run. */
  records: number;
  /**
   * Whether what this run did not read can be taken as withdrawn: false when
   * the feed rejected a larger share of its records than at its last
   * successful import (a damaged file), since an absent entry may then just
   * be unreadable. A feed's usual rejections (maltrail's host-less paths)
   * never block it.
   */
  absenceMeansWithdrawn: boolean;
  /**
   * Runs `work` in the run's final transaction, which also records the
   * outcome: what readers see changes all at once, when it commits. Call it
   * exactly once.
   */
  commit(work: (trx: Kysely<Database>) => Promise<void>): Promise<void>;
}

/**
 * How one kind of feed is stored. Parsed records are staged (no served table
 * changes while a feed is read); the merge then changes the served tables
 * with set statements, rewriting only what changed.
 */
export interface Importer<R> {
  readonly staging: readonly StagingTable[];
  /** Writes a parsed record's rows to the staging tables; `rec` numbers the records of a run in feed order (from 1). */
  stage(record: R, out: StagingOut, rec: number): void;
  merge(ctx: MergeContext): Promise<void>;
  /** Rows the source holds once merged (`sources.record_count`). */
  countRecords(db: Kysely<Database>, source: string): Promise<number>;
  /** Whether the feed lists everything it knows on every run (its missing entries were withdrawn). */
  readonly completeList?: boolean;
}

/** Content hash of a staged record: an unchanged record is recognised without comparing its fields. */
export function contentHash(value: unknown): string {
  return createHash("sha1").update(JSON.stringify(value)).digest("base64url");
}

export function chunk<T>(items: readonly T[], size: number): T[][] {
  const chunks: T[][] = [];
  for (let i = 0; i < items.length; i += size) chunks.push(items.slice(i, i + size));
  return chunks;
}
