import { constants, crc32, deflateRawSync } from "node:zlib";

/**
 * A document that is the same for every response except for short values
 * that differ each time (the CSP nonce), compressed once.
 *
 * Each fixed segment is deflated on its own and ended with a full flush,
 * which leaves the stream byte-aligned and the compressor's history empty.
 * Raw deflate streams ended that way can be concatenated, and between two of
 * them a "stored" block (5 bytes of header, then the bytes as they are) can
 * carry the value of the moment. A gzip header and trailer (CRC-32 and length
 * of the whole text) make one valid gzip body of it, without compressing
 * anything per response.
 */
export interface GzipSegments {
  /** The fixed text around the values, as UTF-8. */
  plain: Buffer[];
  /** The same segments, each deflated and ended with a full flush. */
  deflated: Buffer[];
}

const GZIP_HEADER = Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xff]);
/** A final, empty stored block: BFINAL=1, BTYPE=00, then LEN=0 and NLEN=0xffff. */
const FINAL_EMPTY_BLOCK = Buffer.from([0x01, 0x00, 0x00, 0xff, 0xff]);
const MAX_STORED_BLOCK = 0xffff;

export function compressSegments(segments: readonly string[], level: number): GzipSegments {
  const plain = segments.map((segment) => Buffer.from(segment, "utf8"));
  const deflated = plain.map((segment) => deflateRawSync(segment, { level, finishFlush: constants.Z_FULL_FLUSH }));
  return { plain, deflated };
}

function storedBlocks(value: Buffer): Buffer[] {
  const blocks: Buffer[] = [];
  for (let offset = 0; offset < value.length; offset += MAX_STORED_BLOCK) {
    const piece = value.subarray(offset, offset + MAX_STORED_BLOCK);
    const header = Buffer.alloc(5);
    header[0] = 0x00; // BFINAL=0, BTYPE=00 (stored); the stream is byte-aligned after a full flush
    header.writeUInt16LE(piece.length, 1);
    header.writeUInt16LE(~piece.length & 0xffff, 3);
    blocks.push(header, piece);
  }
  return blocks;
}

/** The text with `value` between each pair of segments. */
export function joinPlain({ plain }: GzipSegments, value: string): Buffer {
  const between = Buffer.from(value, "utf8");
  return Buffer.concat(plain.flatMap((segment, i) => (i === 0 ? [segment] : [between, segment])));
}

/**
 * zlib's crc32() returns the initial value, not the running one, when given a
 * NULL buffer, and an empty Buffer that zlib has read can be one: empty
 * pieces are skipped.
 */
function continueCrc(piece: Buffer, crc: number): number {
  return piece.length === 0 ? crc : crc32(piece, crc);
}

/** A gzip body of the text with `value` between each pair of segments. */
export function joinGzip({ plain, deflated }: GzipSegments, value: string): Buffer {
  const between = Buffer.from(value, "utf8");
  const parts: Buffer[] = [GZIP_HEADER];
  let crc = 0;
  let length = 0;
  plain.forEach((segment, i) => {
    if (i > 0) {
      parts.push(...storedBlocks(between));
      crc = continueCrc(between, crc);
      length += between.length;
    }
    parts.push(deflated[i]!);
    crc = continueCrc(segment, crc);
    length += segment.length;
  });
  const trailer = Buffer.alloc(8);
  trailer.writeUInt32LE(crc >>> 0, 0);
  trailer.writeUInt32LE(length >>> 0, 4);
  parts.push(FINAL_EMPTY_BLOCK, trailer);
  return Buffer.concat(parts);
}
