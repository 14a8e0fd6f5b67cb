import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { Request, Response } from "express";
import type { Logger } from "pino";
import { isClientGone } from "../runtime/request-scope";

/**
 * Streams generated text to the response with backpressure, so an export of
 * thousands of rows never sits in memory whole. The generator should read
 * the database in batches: a batch is one short read, so a client that reads
 * slowly holds nothing but its own generator. A client that leaves mid-way
 * ends the export, logged once.
 */
export async function streamText(req: Request, res: Response, logger: Logger, chunks: () => AsyncIterable<string>): Promise<void> {
  try {
    await pipeline(Readable.from(chunks()), res);
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (isClientGone(error) || code === "ERR_STREAM_PREMATURE_CLOSE" || res.destroyed) {
      logger.info({ url: req.originalUrl }, "export aborted: the client went away");
      return;
    }
    throw error;
  }
}

/**
 * Rows per chunk of an export's text. One chunk per row made thousands of
 * tiny writes through compression (their overhead cost more than the rows);
 * one per database batch (500 rows) held the event loop for up to 50 ms while
 * a STIX chunk was built. A chunk is written before the next is made.
 */
export const ROWS_PER_CHUNK = 100;

/** `items` in slices of at most `size`. */
export function* slices<T>(items: readonly T[], size = ROWS_PER_CHUNK): Generator<readonly T[]> {
  for (let start = 0; start < items.length; start += size) yield items.slice(start, start + size);
}

/**
 * The items of a JSON array written in chunks: each call joins a chunk's
 * items, with the comma that separates it from the chunk before.
 */
export function jsonArrayChunks(): (items: readonly string[]) => string {
  let first = true;
  return (items) => {
    if (items.length === 0) return "";
    const text = `${first ? "" : ","}${items.join(",")}`;
    first = false;
    return text;
  };
}
