import { Readable } from "node:stream";
import { createGunzip } from "node:zlib";
import { extract as tarExtract } from "tar-stream";

/**
 * What every parser reads: a Node Readable (file, HTTP body), or any sync or
 * async iterable of text or byte chunks. Chunks are a stream, not lines, so
 * pass lines with their "\n". Gzip-compressed bytes are detected and
 * decompressed on the fly.
 */
export type FeedInput = AsyncIterable<string | Uint8Array> | Iterable<string | Uint8Array>;

/** Longer lines are reported as malformed instead of being buffered. */
export const MAX_LINE_LENGTH = 1 << 20;

const GZIP_MAGIC = [0x1f, 0x8b] as const;

function isGzip(head: Uint8Array): boolean {
  return head[0] === GZIP_MAGIC[0] && head[1] === GZIP_MAGIC[1];
}

async function* concatBytes(head: Uint8Array, rest: AsyncIterator<string | Uint8Array>): AsyncGenerator<Uint8Array> {
  yield head;
  for (;;) {
    const next = await rest.next();
    if (next.done === true) return;
    yield typeof next.value === "string" ? new TextEncoder().encode(next.value) : next.value;
  }
}

/** The input's chunks, gunzipped when the bytes start with the gzip magic number. */
export async function* decompressed(input: FeedInput): AsyncGenerator<string | Uint8Array> {
  const iterator = (async function* () {
    yield* input;
  })();
  // Collect at least two bytes so the magic number can be checked even when
  // the producer hands out tiny chunks.
  let head = new Uint8Array(0);
  for (;;) {
    const next = await iterator.next();
    if (next.done === true) {
      if (head.length > 0) yield head;
      return;
    }
    if (typeof next.value === "string") {
      if (head.length > 0) yield head;
      yield next.value;
      yield* iterator;
      return;
    }
    const joined = new Uint8Array(head.length + next.value.length);
    joined.set(head);
    joined.set(next.value, head.length);
    head = joined;
    if (head.length >= GZIP_MAGIC.length) break;
  }
  if (!isGzip(head)) {
    yield head;
    yield* iterator;
    return;
  }
  const source = Readable.from(concatBytes(head, iterator));
  const gunzip = createGunzip();
  source.on("error", (error) => gunzip.destroy(error));
  source.pipe(gunzip);
  try {
    for await (const chunk of gunzip) yield chunk as Uint8Array;
  } finally {
    source.destroy();
    gunzip.destroy();
  }
}

/** UTF-8 text of the (possibly gzipped) input; invalid bytes become U+FFFD. */
export async function* textChunks(input: FeedInput): AsyncGenerator<string> {
  const decoder = new TextDecoder("utf-8");
  for await (const chunk of decompressed(input)) {
    const text = typeof chunk === "string" ? chunk : decoder.decode(chunk, { stream: true });
    if (text !== "") yield text;
  }
  const tail = decoder.decode();
  if (tail !== "") yield tail;
}

export interface Line {
  /** 1-based physical line number. */
  number: number;
  /** Without the line break; null when the line exceeded MAX_LINE_LENGTH. */
  text: string | null;
}

/**
 * Lines of the input (LF or CRLF), streamed; a leading byte-order mark is
 * dropped. Lines come in batches (one per input chunk) because an async
 * generator hop per line would cost more than parsing the line.
 */
export async function* readLines(input: FeedInput): AsyncGenerator<Line[]> {
  let buffer = "";
  let overflow = false;
  let number = 0;
  const finishLine = (piece: string): Line => {
    number += 1;
    if (overflow || buffer.length + piece.length > MAX_LINE_LENGTH) return { number, text: null };
    let text = buffer + piece;
    if (text.endsWith("\r")) text = text.slice(0, -1);
    if (number === 1 && text.startsWith("\ufeff")) text = text.slice(1);
    return { number, text };
  };
  for await (const chunk of textChunks(input)) {
    const batch: Line[] = [];
    let from = 0;
    for (;;) {
      const newline = chunk.indexOf("\n", from);
      if (newline < 0) {
        if (!overflow) {
          buffer += chunk.slice(from);
          if (buffer.length > MAX_LINE_LENGTH) {
            overflow = true;
            buffer = "";
          }
        }
        break;
      }
      batch.push(finishLine(chunk.slice(from, newline)));
      buffer = "";
      overflow = false;
      from = newline + 1;
    }
    if (batch.length > 0) yield batch;
  }
  if (buffer !== "" || overflow) yield [finishLine("")];
}

export interface TarFile {
  /** Path inside the archive, e.g. "trails/static/malware/emotet.txt". */
  name: string;
  size: number;
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
      const { name, size, type } = entry.header;
      if (type === "file" || type === "contiguous-file" || type === undefined || type === null) {
        // Entries are streamx Readables of Buffers; their typings say `unknown`.
        yield { name, size: size ?? 0, body: entry as AsyncIterable<Uint8Array> };
      }
      entry.resume();
    }
  } finally {
    source.destroy();
    extract.destroy();
  }
}
