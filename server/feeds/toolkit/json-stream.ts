/**
 * Streams selected values out of one large JSON document without holding
 * the document in memory: the scanner tracks only the nesting path and
 * buffers just the value being captured (e.g. one IOC of a ThreatFox export,
 * one object of a STIX bundle), which is then handed to JSON.parse.
 */

export type JsonPath = ReadonlyArray<string | number>;

export interface JsonValueAt {
  path: Array<string | number>;
  value: unknown;
}

type ObjectState = "keyOrEnd" | "key" | "colon" | "value" | "commaOrEnd";
type ArrayState = "valueOrEnd" | "value" | "commaOrEnd";
type Frame = { kind: "object"; state: ObjectState; key: string } | { kind: "array"; state: ArrayState; key: number };

type Mode = "normal" | "key" | "skipString" | "skipScalar" | "capture";

const WHITESPACE = new Set([" ", "\t", "\n", "\r"]);
const SCALAR_START = new Set(["-", "0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "t", "f", "n"]);

function endsScalar(char: string): boolean {
  return char === "," || char === "]" || char === "}" || WHITESPACE.has(char);
}

class JsonValueScanner {
  private readonly frames: Frame[] = [];
  private rootDone = false;
  private mode: Mode = "normal";
  private escaped = false;
  private keyText = "";
  private offset = 0;
  private captureParts: string[] = [];
  private capturePath: Array<string | number> = [];
  private captureDepth = 0;
  private captureInString = false;
  private captureScalar = false;

  constructor(private readonly select: (path: JsonPath) => boolean) {}

  feed(chunk: string, out: JsonValueAt[]): void {
    let captureStart = this.mode === "capture" ? 0 : -1;
    for (let i = 0; i < chunk.length; i += 1) {
      const char = chunk[i] ?? "";
      switch (this.mode) {
        case "capture":
          if (this.captureScalar) {
            if (endsScalar(char)) {
              this.captureParts.push(chunk.slice(captureStart, i));
              captureStart = -1;
              this.finishCapture(out);
              i -= 1; // the delimiter belongs to the enclosing container
            }
          } else if (this.captureInString) {
            if (this.escaped) this.escaped = false;
            else if (char === "\\") this.escaped = true;
            else if (char === '"') {
              this.captureInString = false;
              if (this.captureDepth === 0) {
                this.captureParts.push(chunk.slice(captureStart, i + 1));
                captureStart = -1;
                this.finishCapture(out);
              }
            }
          } else if (char === '"') {
            this.captureInString = true;
          } else if (char === "{" || char === "[") {
            this.captureDepth += 1;
          } else if (char === "}" || char === "]") {
            this.captureDepth -= 1;
            if (this.captureDepth === 0) {
              this.captureParts.push(chunk.slice(captureStart, i + 1));
              captureStart = -1;
              this.finishCapture(out);
            }
          }
          break;
        case "key":
          if (this.escaped) {
            this.escaped = false;
            this.keyText += char;
          } else if (char === "\\") {
            this.escaped = true;
            this.keyText += char;
          } else if (char === '"') {
            const frame = this.frames.at(-1);
            if (frame?.kind !== "object") throw this.error("key outside an object");
            frame.key = JSON.parse(`"${this.keyText}"`) as string;
            frame.state = "colon";
            this.mode = "normal";
          } else {
            this.keyText += char;
          }
          break;
        case "skipString":
          if (this.escaped) this.escaped = false;
          else if (char === "\\") this.escaped = true;
          else if (char === '"') {
            this.mode = "normal";
            this.valueDone();
          }
          break;
        case "skipScalar":
          if (endsScalar(char)) {
            this.mode = "normal";
            this.valueDone();
            i -= 1;
          }
          break;
        case "normal":
          if (WHITESPACE.has(char)) break;
          if (this.structural(char)) captureStart = i;
          break;
      }
    }
    if (this.mode === "capture" && captureStart >= 0) this.captureParts.push(chunk.slice(captureStart));
    this.offset += chunk.length;
  }

  end(out: JsonValueAt[]): void {
    if (this.mode === "capture" && this.captureScalar) this.finishCapture(out);
    if (this.mode === "skipScalar") {
      this.mode = "normal";
      this.valueDone();
    }
    if (!this.rootDone || this.mode !== "normal") throw this.error("unexpected end of input");
  }

  /** Handles one non-whitespace character outside strings; true when a capture started. */
  private structural(char: string): boolean {
    const frame = this.frames.at(-1);
    if (frame === undefined) {
      if (this.rootDone) throw this.error(`unexpected ${JSON.stringify(char)} after the document`);
      return this.startValue(char);
    }
    if (frame.kind === "object") {
      switch (frame.state) {
        case "keyOrEnd":
        case "key":
          if (char === '"') {
            this.mode = "key";
            this.keyText = "";
            return false;
          }
          if (char === "}" && frame.state === "keyOrEnd") {
            this.closeFrame();
            return false;
          }
          throw this.error("expected a key");
        case "colon":
          if (char !== ":") throw this.error("expected ':'");
          frame.state = "value";
          return false;
        case "value":
          return this.startValue(char);
        case "commaOrEnd":
          if (char === ",") frame.state = "key";
          else if (char === "}") this.closeFrame();
          else throw this.error("expected ',' or '}'");
          return false;
      }
    }
    switch (frame.state) {
      case "valueOrEnd":
        if (char === "]") {
          this.closeFrame();
          return false;
        }
        return this.startValue(char);
      case "value":
        return this.startValue(char);
      case "commaOrEnd":
        if (char === ",") {
          frame.key += 1;
          frame.state = "value";
        } else if (char === "]") {
          this.closeFrame();
        } else {
          throw this.error("expected ',' or ']'");
        }
        return false;
    }
  }

  private startValue(char: string): boolean {
    const path = this.frames.map((frame) => frame.key);
    const container = char === "{" || char === "[";
    if (!container && char !== '"' && !SCALAR_START.has(char)) throw this.error(`unexpected ${JSON.stringify(char)}`);
    if (this.select(path)) {
      this.mode = "capture";
      this.capturePath = path;
      this.captureParts = [];
      this.captureDepth = container ? 1 : 0;
      this.captureInString = char === '"';
      this.captureScalar = !container && char !== '"';
      this.escaped = false;
      return true;
    }
    if (char === "{") this.frames.push({ kind: "object", state: "keyOrEnd", key: "" });
    else if (char === "[") this.frames.push({ kind: "array", state: "valueOrEnd", key: 0 });
    else if (char === '"') {
      this.mode = "skipString";
      this.escaped = false;
    } else {
      this.mode = "skipScalar";
    }
    return false;
  }

  private finishCapture(out: JsonValueAt[]): void {
    const text = this.captureParts.join("");
    this.captureParts = [];
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      throw this.error(`invalid value at ${JSON.stringify(this.capturePath)}: ${(error as Error).message}`);
    }
    out.push({ path: this.capturePath, value });
    this.mode = "normal";
    this.valueDone();
  }

  private closeFrame(): void {
    this.frames.pop();
    this.valueDone();
  }

  private valueDone(): void {
    const frame = this.frames.at(-1);
    if (frame === undefined) this.rootDone = true;
    else frame.state = "commaOrEnd";
  }

  private error(message: string): Error {
    return new Error(`Invalid JSON near character ${this.offset}: ${message}`);
  }
}

/**
 * Yields every value whose path `select` accepts (paths are object keys and
 * array indexes from the root). Selected values are not descended into.
 * Throws when the document is not valid JSON.
 */
export async function* streamJsonValues(chunks: AsyncIterable<string>, select: (path: JsonPath) => boolean): AsyncGenerator<JsonValueAt> {
  const scanner = new JsonValueScanner(select);
  for await (const chunk of chunks) {
    const out: JsonValueAt[] = [];
    scanner.feed(chunk, out);
    yield* out;
  }
  const out: JsonValueAt[] = [];
  scanner.end(out);
  yield* out;
}
