import compression from "compression";
import type { RequestHandler } from "express";

/**
 * Compression of dynamic responses (brotli or gzip, as the client accepts),
 * at COMPRESSION_LEVEL. One definition, so that the static ceiling of
 * `npm run bench:load` compresses exactly as the site does. Cached pages
 * arrive already compressed and are left alone.
 */
export function responseCompression(level: number): RequestHandler {
  return compression({ level });
}
