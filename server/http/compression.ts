import compression from "compression";
import type { RequestHandler } from "express";

/**
 * Compression of every response (brotli or gzip, as the client accepts). One
 * definition, so that the static ceiling of `npm run bench:load` compresses
 * exactly as the site does.
 */
export function responseCompression(): RequestHandler {
  return compression();
}
