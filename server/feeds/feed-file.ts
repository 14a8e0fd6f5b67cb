import { createReadStream } from "node:fs";
import { open, opendir, stat } from "node:fs/promises";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { Readable } from "node:stream";
import { createGunzip } from "node:zlib";
import tar from "tar-stream";
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
 * "unexpected end of file".
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

/** Lines of a text stream with 1-based line numbers; a final line without newline is included. */
export async function* readLines(stream: Readable): AsyncGenerator<{ line: string; lineNumber: number }> {
  const lines = createInterface({ input: stream, crlfDelay: Infinity });
  // readline does not forward the input's errors to the iterator; without this
  // a truncated gzip would look like a clean end of file.
  let failure: unknown = null;
  stream.once("error", (error) => {
    failure = error;
    lines.close();
  });
  let lineNumber = 0;
  for await (const line of lines) {
    lineNumber += 1;
    yield { line, lineNumber };
  }
  if (failure) throw failure;
  if (stream.errored) throw stream.errored;
}

/** The first chunk of a stream, and a stream that still yields everything from the start. */
export async function peek(stream: Readable): Promise<{ head: Buffer; stream: Readable }> {
  const iterator = stream[Symbol.asyncIterator]();
  const first = await iterator.next();
  const head: Buffer = first.done ? Buffer.alloc(0) : Buffer.from(first.value);
  async function* replay(): AsyncGenerator<Buffer> {
    yield head;
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield next.value;
  }
  return { head, stream: Readable.from(replay(), { objectMode: false }) };
}

export async function readText(stream: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks).toString("utf8");
}

export interface TarEntry {
  name: string;
  size: number;
  body: Readable;
}

/**
 * Entries of a tar stream (already gunzipped), regular files only. The caller
 * must consume or drain each body before asking for the next entry.
 */
export async function* tarEntries(stream: Readable): AsyncGenerator<TarEntry> {
  const extract = tar.extract();
  stream.on("error", (error) => extract.destroy(error));
  stream.pipe(extract);
  for await (const entry of extract) {
    if (entry.header.type === "file") {
      yield { name: entry.header.name, size: entry.header.size ?? 0, body: Readable.from(entry) };
    }
    entry.resume();
  }
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
