import { Readable } from "node:stream";
import { extract as tarExtract } from "tar-stream";
import { decompressed, type FeedInput } from "./stream";

export interface TarFile {
  /** Path inside the archive, e.g. "trails/static/malware/emotet.txt". */
  name: string;
  size: number;
  /** The file's modification time in the archive; null when it has none (0, as reproducible archives write). */
  modified: Date | null;
  body: AsyncIterable<Uint8Array>;
}

/**
 * Regular files of a (possibly gzipped) tar archive, one at a time. Each
 * body must be read before asking for the next file; whatever is left unread
 * is skipped.
 */
export async function* tarFiles(input: FeedInput): AsyncGenerator<TarFile> {
  const source = Readable.from(decompressed(input));
  const extract = tarExtract();
  source.on("error", (error) => extract.destroy(error));
  source.pipe(extract);
  try {
    for await (const entry of extract) {
      const { name, size, type, mtime } = entry.header;
      if (type === "file" || type === "contiguous-file" || type === undefined || type === null) {
        // Entries are streamx Readables of Buffers; their typings say `unknown`.
        const modified = mtime !== undefined && mtime.getTime() > 0 ? mtime : null;
        yield { name, size: size ?? 0, modified, body: entry as AsyncIterable<Uint8Array> };
      }
      entry.resume();
    }
  } finally {
    source.destroy();
    extract.destroy();
  }
}

/** A (gunzipped) tar archive: "ustar" at offset 257 of its first header. */
export function isTar(head: Uint8Array): boolean {
  return Buffer.from(head.buffer, head.byteOffset, head.byteLength).subarray(257, 262).toString("latin1") === "ustar";
}
