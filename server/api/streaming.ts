import { once } from "node:events";
import type { Response } from "express";

/** Writes a chunk, waiting for the socket to drain when its buffer is full. */
export async function writeChunk(res: Response, chunk: string): Promise<void> {
  if (!res.write(chunk)) await once(res, "drain");
}
