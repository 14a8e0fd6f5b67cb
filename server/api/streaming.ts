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
