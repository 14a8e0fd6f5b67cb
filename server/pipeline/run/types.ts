import type { Readable } from "node:stream";
import type { Logger } from "pino";
import type { FailureDetail } from "../engine/failure";
import type { ImportCounts, Importer } from "../engine/importer";
import type { ImportStore } from "../engine/store";
import type { ParseResult } from "../../feeds/toolkit/result";

/** A location made local: a path on disk, and what the publisher said about it. */
export interface FeedFile {
  location: string;
  path: string;
  /** Short name for log locations ("vulnrichment_cve5_2024.jsonl.gz"). */
  name: string;
  size: number;
  /** HTTP Last-Modified, or the file's mtime for local paths. */
  lastModified: string | null;
}

export interface ImportProgress {
  source: string;
  phase: "download" | "import" | "merge";
  /** Raw bytes read (import) or received (download) so far. */
  done: number;
  /** Bytes known so far; grows as files are discovered. */
  total: number;
  records: number;
  /** Records the last successful run read: what `records` counts towards, when known. */
  expectedRecords: number | null;
}

/** Bounds a reader keeps to, so one import stays of bounded size. */
export interface ReadLimits {
  /** MISP feed events read per import; the others wait for the next run (the cursor says where it stopped). */
  mispEventsPerRun: number;
}

/**
 * A day's TweetFeed event is a few hundred attributes, so a year of them (365
 * events) loads in one run; a large feed (CIRCL's OSINT feed lists thousands
 * of events, some with tens of thousands of attributes) loads over a few runs.
 */
export const DEFAULT_READ_LIMITS: ReadLimits = { mispEventsPerRun: 1_000 };

/** What a source's reader gets: its locations and the means to fetch and open them. */
export interface ReadContext {
  source: string;
  locations: readonly string[];
  signal: AbortSignal;
  logger: Logger;
  now: Date;
  /** Headers for requests to this source's publisher (e.g. NVD's apiKey). */
  headers: Record<string, string>;
  limits: ReadLimits;
  /** The source's position after its last successful import. */
  cursor: string | null;
  setCursor(value: string | null): void;
  /** Records when the publisher last updated a file, as the file says (an ISO time); the run keeps the latest. */
  setPublished: (value: string) => void;
  /**
   * Makes a location local. URLs are downloaded, conditionally unless told
   * otherwise: null means the publisher answered 304 Not Modified.
   */
  fetch(location: string, options?: { conditional?: boolean }): Promise<FeedFile | null>;
  /** Announces local files that will be read, so progress has its total early. */
  plan(paths: readonly string[]): Promise<void>;
  /** Streams a file, gunzipped when needed, counting progress. */
  open(file: FeedFile): Promise<Readable>;
  /** Says a file has been read: a downloaded copy is deleted at once instead of at the end of the import. */
  release(file: FeedFile): Promise<void>;
}

export type SourceReader<R> = (ctx: ReadContext) => AsyncIterable<ParseResult<R>>;

/** skipped: the source had nothing to read from (e.g. absent from a mirror); no run is recorded. */
export type ImportStatus = "ok" | "not-modified" | "failed" | "skipped";

export interface ImportOutcome {
  source: string;
  status: ImportStatus;
  counts: ImportCounts;
  durationMs: number;
  error: string | null;
  failure?: FailureDetail;
  recordCount: number | null;
  /** Records the parsers read. */
  records?: number;
  /** Rejections per reason (a few example locations each). */
  rejections?: Array<{ reason: string; count: number; examples: string[] }>;
  /** Why a source was skipped. */
  detail?: string;
}

export interface RunImportOptions<R> {
  store: ImportStore;
  source: string;
  read: SourceReader<R>;
  importer: Importer<R>;
  locations: readonly string[];
  /**
   * Whether a location is read whole on every run (a file, a directory, a
   * tarball), so that an unchanged one means nothing to do; not a delta log,
   * an API or a live MISP feed, whose reader follows a cursor.
   */
  readWhole?: (location: string) => boolean;
  /** A record's publication date, for the source's freshness. */
  recordDate?: (record: R) => string | null;
  logger: Logger;
  now: Date;
  signal?: AbortSignal;
  headers?: Record<string, string>;
  limits?: ReadLimits;
  onProgress?: (progress: ImportProgress) => void;
  /** Every rejected location also goes to this file. */
  rejectsFile?: string | null;
}
