import { Readable } from "node:stream";
import { createGunzip } from "node:zlib";

/**
 * What every parser reads: a Node Readable (file, HTTP body, tar entry), or
 * any sync or async iterable of text or byte chunks. Chunks are a stream, not
 * lines, so pass lines with their "\n". Gzip-compressed bytes are detected and
 * decompressed on the fly by every reader in this toolkit.
 */
export type FeedInput = AsyncIterable<string | Uint8Array> | Iterable<string | Uint8Array>;

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

/** UTF-8 text of the (possibly gzipped) input; invalid bytes become U+FFFD, a leading byte-order mark is dropped. */
export async function* textChunks(input: FeedInput): AsyncGenerator<string> {
  const decoder = new TextDecoder("utf-8");
  for await (const chunk of decompressed(input)) {
    const text = typeof chunk === "string" ? chunk : decoder.decode(chunk, { stream: true });
    if (text !== "") yield text;
  }
  const tail = decoder.decode();
  if (tail !== "") yield tail;
}

/**
 * The whole text of a (possibly gzipped) input, for documents that are parsed
 * whole, decoded as `textChunks` decodes it. The bytes are joined and decoded
 * once: a string built chunk by chunk costs JSON.parse a flattening pass.
 */
export async function readText(input: FeedInput): Promise<string> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of decompressed(input)) chunks.push(typeof chunk === "string" ? Buffer.from(chunk, "utf8") : chunk);
  return new TextDecoder("utf-8").decode(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks));
}

/** The first chunk of an input, and a stream that still yields everything from the start. */
export async function peek(input: FeedInput): Promise<{ head: Buffer; stream: Readable }> {
  const iterator = (async function* () {
    yield* input;
  })();
  const first = await iterator.next();
  const head: Buffer = first.done === true ? Buffer.alloc(0) : Buffer.from(first.value);
  async function* replay(): AsyncGenerator<Buffer> {
    yield head;
    for (let next = await iterator.next(); next.done !== true; next = await iterator.next()) {
      yield typeof next.value === "string" ? Buffer.from(next.value) : Buffer.from(next.value.buffer, next.value.byteOffset, next.value.byteLength);
    }
  }
  return { head, stream: Readable.from(replay(), { objectMode: false }) };
}
