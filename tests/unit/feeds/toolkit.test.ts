import { Readable } from "node:stream";
import { gzipSync } from "node:zlib";
import tar from "tar-stream";
import { describe, expect, it } from "vitest";
import { isTar, tarFiles } from "../../../server/feeds/toolkit/archive";
import { csvRecords, splitCsvLine } from "../../../server/feeds/toolkit/csv";
import { MAX_LINE_LENGTH, readLines } from "../../../server/feeds/toolkit/lines";
import { streamJsonValues } from "../../../server/feeds/toolkit/json-stream";
import { reasonKind } from "../../../server/feeds/toolkit/result";
import { peek, readText } from "../../../server/feeds/toolkit/stream";

async function lines(input: Iterable<string | Uint8Array>, maxLineLength?: number): Promise<Array<[number, string | null]>> {
  const out: Array<[number, string | null]> = [];
  for await (const batch of readLines(input, { maxLineLength })) for (const line of batch) out.push([line.number, line.text]);
  return out;
}

function chunked(text: string, size: number): string[] {
  const chunks: string[] = [];
  for (let i = 0; i < text.length; i += size) chunks.push(text.slice(i, i + size));
  return chunks;
}

describe("splitCsvLine", () => {
  it("reads abuse.ch quoting with a space after each comma", () => {
    expect(splitCsvLine(`"2024-07-16 06:45:19", "1301611", "http://x/a,b", "None", ""`)).toEqual([
      "2024-07-16 06:45:19",
      "1301611",
      "http://x/a,b",
      "None",
      "",
    ]);
  });

  it("reads unquoted fields, doubled quotes and quotes inside unquoted fields", () => {
    expect(splitCsvLine(`a,"b ""c"" d",e"f,`)).toEqual(["a", 'b "c" d', 'e"f', ""]);
    expect(splitCsvLine(`2024-01-19,ScumBots,url,"https://pastebin.com/raw/x,0.tcp.sa.ngrok.io:15440",#Njrat,https://x`)).toEqual([
      "2024-01-19",
      "ScumBots",
      "url",
      "https://pastebin.com/raw/x,0.tcp.sa.ngrok.io:15440",
      "#Njrat",
      "https://x",
    ]);
  });

  it("returns null for an unterminated quoted field", () => {
    expect(splitCsvLine(`"a","b`)).toBeNull();
  });
});

describe("readLines", () => {
  it("splits across chunk boundaries, strips CR and a BOM, keeps a last line without newline", async () => {
    const text = "\ufefffirst\r\nsecond\n\nthird";
    for (const size of [1, 2, 3, 100]) {
      expect(await lines(chunked(text, size)), `chunk size ${size}`).toEqual([
        [1, "first"],
        [2, "second"],
        [3, ""],
        [4, "third"],
      ]);
    }
  });

  it("decodes UTF-8 split inside a character", async () => {
    const bytes = new TextEncoder().encode("bücher.de\n例え.jp\n");
    const pieces = Array.from(bytes, (byte) => Uint8Array.of(byte));
    expect(await lines(pieces)).toEqual([
      [1, "bücher.de"],
      [2, "例え.jp"],
    ]);
  });

  it("gunzips input that starts with the gzip magic number", async () => {
    const gz = gzipSync(Buffer.from("a\nb\n"));
    expect(await lines([gz.subarray(0, 1), gz.subarray(1)])).toEqual([
      [1, "a"],
      [2, "b"],
    ]);
  });

  it("throws on a truncated gzip stream instead of ending quietly", async () => {
    const gz = gzipSync(Buffer.from("line\n".repeat(10_000)));
    await expect(lines([gz.subarray(0, gz.length - 20)])).rejects.toThrow(/unexpected end of file/);
  });

  it("reports an over-long line instead of buffering it", async () => {
    const long = "x".repeat(MAX_LINE_LENGTH + 10);
    expect(await lines([`ok\n${long}\nafter\n`])).toEqual([
      [1, "ok"],
      [2, null],
      [3, "after"],
    ]);
  });

  it("keeps a line of any length when the format's records are one line each", async () => {
    const long = "x".repeat(MAX_LINE_LENGTH + 10);
    expect(await lines([`ok\n`, long.slice(0, 10), `${long.slice(10)}\n`], Infinity)).toEqual([
      [1, "ok"],
      [2, long],
    ]);
    expect(await lines(["abcdef\nab\n"], 3)).toEqual([
      [1, null],
      [2, "ab"],
    ]);
  });
});

describe("readText", () => {
  it("decodes UTF-8 split across chunks, drops a byte-order mark and gunzips by content", async () => {
    const bytes = Buffer.from('\ufeff{"name": "例え"}', "utf8");
    const pieces = Array.from(bytes, (byte) => Uint8Array.of(byte));
    expect(await readText(pieces)).toBe('{"name": "例え"}');
    expect(await readText([gzipSync(bytes)])).toBe('{"name": "例え"}');
    expect(await readText([])).toBe("");
  });

  it("turns invalid UTF-8 into U+FFFD instead of failing", async () => {
    expect(await readText([Uint8Array.of(0x61, 0xff, 0x62)])).toBe("a\ufffdb");
  });
});

describe("peek", () => {
  it("shows the first chunk and still yields the whole input", async () => {
    const { head, stream } = await peek(Readable.from([Buffer.from('{"a":'), Buffer.from("1}")]));
    expect(head.toString()).toBe('{"a":');
    expect(await readText(stream)).toBe('{"a":1}');
    const empty = await peek([]);
    expect(empty.head.length).toBe(0);
    expect(await readText(empty.stream)).toBe("");
  });
});

describe("csvRecords", () => {
  it("keys RFC 4180 records by the header, with quoted fields spanning lines, and counts the header as row 1", async () => {
    const csv = '\ufeffcveID,notes,cwes\r\nCVE-2024-1,"two\nlines, with ""quotes""","CWE-79, CWE-89"\r\n\r\nCVE-2024-2,,\r\n';
    const rows = [];
    for await (const row of csvRecords([gzipSync(Buffer.from(csv))])) rows.push(row);
    expect(rows).toEqual([
      { row: 2, record: { cveID: "CVE-2024-1", notes: 'two\nlines, with "quotes"', cwes: "CWE-79, CWE-89" } },
      { row: 3, record: { cveID: "CVE-2024-2", notes: "", cwes: "" } },
    ]);
  });

  it("fails on a quoted field that never closes", async () => {
    const read = async () => {
      for await (const _ of csvRecords(['a,b\n1,"open\n'])) void _;
    };
    await expect(read()).rejects.toThrow(/Quote Not Closed/i);
  });
});

describe("tarFiles", () => {
  async function tarball(files: Record<string, string>, times: Record<string, Date> = {}): Promise<Buffer> {
    const pack = tar.pack();
    pack.entry({ name: "dir/", type: "directory" });
    for (const [name, body] of Object.entries(files)) pack.entry({ name, mtime: times[name] }, body);
    pack.finalize();
    const chunks: Buffer[] = [];
    for await (const chunk of pack) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  }

  it("yields the regular files of a plain or gzipped tar with their bodies, skipping directories", async () => {
    const archive = await tarball({ "dir/a.txt": "alpha\n", "dir/b.txt": "beta\n" });
    expect(isTar(archive)).toBe(true);
    expect(isTar(Buffer.from("plain text"))).toBe(false);
    for (const input of [archive, gzipSync(archive)]) {
      const seen: Array<[string, number, string]> = [];
      for await (const file of tarFiles([input])) seen.push([file.name, file.size, await readText(file.body)]);
      expect(seen).toEqual([
        ["dir/a.txt", 6, "alpha\n"],
        ["dir/b.txt", 5, "beta\n"],
      ]);
    }
  });

  it("gives each file's time in the archive, and none for an archive written without times", async () => {
    const archive = await tarball({ "dated.txt": "a", "undated.txt": "b" }, { "dated.txt": new Date("2026-08-22T21:01:36Z"), "undated.txt": new Date(0) });
    const times: Array<[string, string | null]> = [];
    for await (const file of tarFiles([archive])) times.push([file.name, file.modified?.toISOString() ?? null]);
    expect(times).toEqual([
      ["dated.txt", "2026-08-22T21:01:36.000Z"],
      ["undated.txt", null],
    ]);
  });

  it("skips the bodies a reader leaves unread", async () => {
    const archive = await tarball({ "a.txt": "x".repeat(10_000), "b.txt": "b" });
    const names: string[] = [];
    for await (const file of tarFiles([archive])) names.push(file.name);
    expect(names).toEqual(["a.txt", "b.txt"]);
  });
});

describe("streamJsonValues", () => {
  async function values(text: string, size: number, select: (path: readonly (string | number)[]) => boolean) {
    const out: Array<[Array<string | number>, unknown]> = [];
    const chunks = (async function* () {
      yield* chunked(text, size);
    })();
    for await (const { path, value } of streamJsonValues(chunks, select)) out.push([path, value]);
    return out;
  }

  const doc = `{"a\\"b": [ {"x": "}]\\\\", "y": [1, 2.5e3, true, null]}, 7, "s" ],
    "objects": [{"id": 1}, {"id": 2, "nested": {"k": [{}]}}], "z": -0.5}`;

  it("yields the selected values wherever chunk boundaries fall", async () => {
    for (const size of [1, 3, 7, 1000]) {
      expect(await values(doc, size, (p) => p.length === 2), `chunk size ${size}`).toEqual([
        [['a"b', 0], { x: "}]\\", y: [1, 2500, true, null] }],
        [['a"b', 1], 7],
        [['a"b', 2], "s"],
        [["objects", 0], { id: 1 }],
        [["objects", 1], { id: 2, nested: { k: [{}] } }],
      ]);
      expect(await values(doc, size, (p) => p[0] === "z")).toEqual([[["z"], -0.5]]);
    }
  });

  it("throws on malformed JSON", async () => {
    await expect(values(`{"a": [1, 2}`, 4, () => false)).rejects.toThrow(/Invalid JSON/);
    await expect(values(`{"a": [1, 2]`, 4, () => false)).rejects.toThrow(/unexpected end/);
    await expect(values(`{"a": 1} x`, 4, () => false)).rejects.toThrow(/after the document/);
  });
});

describe("reasonKind", () => {
  it("groups reasons by their wording without the quoted value", () => {
    expect(reasonKind('not a valid indicator: "x.invalid"')).toBe("not a valid indicator");
    expect(reasonKind('expected url, got domain "example.com"')).toBe("expected url, got domain");
    expect(reasonKind("path-only trail names no host")).toBe("path-only trail names no host");
  });
});
