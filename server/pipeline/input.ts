import { createReadStream } from "node:fs";
import { open, opendir, stat } from "node:fs/promises";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { Readable } from "node:stream";
import { createGunzip } from "node:zlib";
import tar from "tar-stream";

/** Called with the number of raw (possibly compressed) bytes just read from disk. */
export type ByteCounter = (bytes: number) => void;

const GZIP_MAGIC = [0x1f, 0x8b] as const;

async function startsWithGzipMagic(path: string): Promise<boolean> {
  const handle = await open(path, "r");
  try {
    const head = Buffer.alloc(2);
    const { bytesRead } = await handle.read(head, 0, 2, 0);
    return bytesRead === 2 && head[0] === GZIP_MAGIC[0] && head[1] === GZIP_MAGIC[1];
  } finally {
    await handle.close();
  }
}

/**
 * Streams a local file, gunzipping it when it starts with the gzip magic
 * bytes (publishers are inconsistent about file extensions). A truncated gzip
 * makes the returned stream fail with zlib's "unexpected end of file".
 */
export async function openFeedFile(path: string, onBytes?: ByteCounter): Promise<Readable> {
  const gzipped = await startsWithGzipMagic(path);
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
