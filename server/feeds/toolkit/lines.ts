import { textChunks, type FeedInput } from "./stream";

/** Longer lines are reported as too long instead of being buffered. */
export const MAX_LINE_LENGTH = 1 << 20;

export interface Line {
  /** 1-based physical line number. */
  number: number;
  /** Without the line break; null when the line exceeded the maximum length. */
  text: string | null;
}

export interface LineOptions {
  /**
   * Characters a line may have (default MAX_LINE_LENGTH). Formats whose one
   * record is one line of JSON pass Infinity: a record is as long as it is.
   */
  maxLineLength?: number;
}

/**
 * Lines of the (possibly gzipped) input, LF or CRLF, streamed; a leading
 * byte-order mark is dropped and a last line without a newline is kept.
 * Lines come in batches (one per input chunk) because an async generator hop
 * per line would cost more than parsing the line.
 */
export async function* readLines(input: FeedInput, options: LineOptions = {}): AsyncGenerator<Line[]> {
  const maxLength = options.maxLineLength ?? MAX_LINE_LENGTH;
  let buffer = "";
  let overflow = false;
  let number = 0;
  const finishLine = (piece: string): Line => {
    number += 1;
    if (overflow || buffer.length + piece.length > maxLength) return { number, text: null };
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
          if (buffer.length > maxLength) {
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
