import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { Response } from "express";

/**
 * Streams generated text to the response with backpressure, so an export of
 * thousands of rows never sits in memory whole.
 */
export async function streamText(res: Response, chunks: () => AsyncIterable<string>): Promise<void> {
  await pipeline(Readable.from(chunks()), res);
}
