import { createReadStream } from "node:fs";
import { open, opendir, stat } from "node:fs/promises";
import { join } from "node:path";
import { Readable } from "node:stream";
import { createGunzip } from "node:zlib";
import yauzl from "yauzl";

/** Called with the number of raw (possibly compressed) bytes just read from disk. */
export type ByteCounter = (bytes: number) => void;

type Container = "gzip" | "zip" | "plain";

async function containerOf(path: string): Promise<Container> {
  const handle = await open(path, "r");
  try {
    const head = Buffer.alloc(4);
    const { bytesRead } = await handle.read(head, 0, 4, 0);
    if (bytesRead >= 2 && head[0] === 0x1f && head[1] === 0x8b) return "gzip";
    if (bytesRead === 4 && head.readUInt32LE(0) === 0x04034b50) return "zip";
    return "plain";
  } finally {
    await handle.close();
  }
}

/**
 * The first file inside a ZIP archive: publishers that zip a feed (MITRE's
 * cwec_latest.xml.zip) put one file in it. yauzl reads the central directory,
 * so a truncated archive fails before anything is parsed.
 */
function openFirstZipEntry(path: string, onBytes?: ByteCounter): Promise<Readable> {
  return new Promise((resolve, reject) => {
    yauzl.open(path, { lazyEntries: true, autoClose: true }, (openError, zip) => {
      if (openError) return reject(openError);
      zip.on("error", reject);
      zip.on("end", () => reject(new Error(`${path}: the ZIP archive holds no file`)));
      zip.on("entry", (entry: yauzl.Entry) => {
        if (entry.fileName.endsWith("/")) return zip.readEntry();
        zip.openReadStream(entry, (streamError, stream) => {
          if (streamError) return reject(streamError);
          if (onBytes) stream.on("data", (chunk: Buffer) => onBytes(Math.round((chunk.length * entry.compressedSize) / Math.max(1, entry.uncompressedSize))));
          resolve(stream);
        });
      });
      zip.readEntry();
    });
  });
}

/**
 * Streams a local file, decompressing it by its magic bytes rather than its
 * name (publishers are inconsistent about extensions): gzip, or the first
 * file of a ZIP. A truncated gzip makes the returned stream fail with zlib's
 * "unexpected end of file". The readers of ./stream, ./lines, ./csv and
 * ./archive take the result (or any other stream) and gunzip it again if it
 * still starts with the gzip magic number.
 */
export async function openFeedFile(path: string, onBytes?: ByteCounter): Promise<Readable> {
  const container = await containerOf(path);
  if (container === "zip") return openFirstZipEntry(path, onBytes);
  const gzipped = container === "gzip";
  const raw = createReadStream(path, { highWaterMark: 1 << 20 });
  if (onBytes) raw.on("data", (chunk) => onBytes(chunk.length));
  if (!gzipped) return raw;
  const gunzip = createGunzip();
  raw.on("error", (error) => gunzip.destroy(error));
  return raw.pipe(gunzip);
}

/** Every file under `dir` (depth first, names sorted for a stable order) whose name passes `accept`. */
export async function* walkFiles(dir: string, accept: (name: string) => boolean): AsyncGenerator<string> {
  const entries: Array<{ name: string; isDir: boolean }> = [];
  for await (const entry of await opendir(dir)) {
    if (entry.isDirectory()) entries.push({ name: entry.name, isDir: true });
    else if (entry.isFile() && accept(entry.name)) entries.push({ name: entry.name, isDir: false });
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDir) yield* walkFiles(path, accept);
    else yield path;
  }
}

export async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}
