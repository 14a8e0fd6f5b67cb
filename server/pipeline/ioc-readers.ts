import { basename } from "node:path";
import type { Readable } from "node:stream";
import type { IocSighting } from "../../shared/types/ioc";
import type { FeedRecordResult, ParserOptions } from "../feeds/ioc/common";
import { parseFeodoCsv } from "../feeds/ioc/feodo";
import { parseMaltrailTar } from "../feeds/ioc/maltrail";
import { parseHashList, parseMalwareBazaarCsv } from "../feeds/ioc/malwarebazaar";
import { parseMispEvent, parseMispFeedTar } from "../feeds/ioc/misp";
import { parseSignatureBaseC2, parseSignatureBaseHashes } from "../feeds/ioc/signature-base";
import { parseStixBundle } from "../feeds/ioc/stix";
import { parseThreatFoxCsv, parseThreatFoxJson } from "../feeds/ioc/threatfox";
import { parseTweetFeedCsv } from "../feeds/ioc/tweetfeed";
import { parseUrlhausCsv } from "../feeds/ioc/urlhaus";
import { parseWarninglist, type Warninglist } from "../feeds/warninglists/parse";
import type { ParseResult } from "./feed";
import { peek, readText, tarEntries } from "./input";
import { feedFiles } from "./readers";
import type { FeedFile, ReadContext } from "./run";

type IocParser = (input: Readable, options: ParserOptions) => AsyncIterable<FeedRecordResult>;

/** IOC parsers name lines, not files; the file name makes a rejection findable. */
async function* inFile(file: FeedFile, results: AsyncIterable<FeedRecordResult>): AsyncGenerator<ParseResult<IocSighting>> {
  for await (const result of results) {
    yield result.ok ? result : { ok: false, location: `${file.name}:${result.location}`, reason: result.reason };
  }
}

/** A (gunzipped) tar archive: "ustar" at offset 257 of its first header. */
function isTar(head: Buffer): boolean {
  return head.subarray(257, 262).toString("latin1") === "ustar";
}

/**
 * Reads every file of the source with the parser `choose` picks for it, by
 * name or by its first (decompressed) bytes: `head` is their text, `bytes`
 * the bytes themselves.
 */
function iocReader(accept: RegExp, choose: (file: FeedFile, head: string, bytes: Buffer) => IocParser) {
  return async function* read(ctx: ReadContext): AsyncGenerator<ParseResult<IocSighting>> {
    for await (const file of feedFiles(ctx, (name) => accept.test(name))) {
      const { head, stream } = await peek(await ctx.open(file));
      const parser = choose(file, head.subarray(0, 4096).toString("utf8").trimStart(), head);
      yield* inFile(file, parser(stream, { source: ctx.source }));
    }
  };
}

const CSV_OR_JSON = /\.(csv|json|txt)(\.gz)?$/i;

export const readThreatFox = iocReader(CSV_OR_JSON, (_file, head) =>
  head.startsWith("{") ? parseThreatFoxJson : parseThreatFoxCsv,
);
export const readUrlhaus = iocReader(CSV_OR_JSON, () => parseUrlhausCsv);
export const readFeodo = iocReader(CSV_OR_JSON, () => parseFeodoCsv);
/** The CSV export, or the plain hash lists ("recent md5") MalwareBazaar also publishes. */
export const readMalwareBazaar = iocReader(CSV_OR_JSON, (_file, head) =>
  /first_seen_utc/.test(head) ? parseMalwareBazaarCsv : parseHashList,
);
/**
 * TweetFeed publishes the same IOCs as CSV (daily files, today/week/month),
 * as a MISP feed (read as a tar of its folder, or one event file) and as
 * STIX 2.1 bundles; all three land in the one "tweetfeed" source.
 */
export const readTweetFeed = iocReader(/\.(csv|json|tar|tar\.gz|tgz)(\.gz)?$/i, (_file, head, bytes) => {
  if (isTar(bytes)) return parseMispFeedTar;
  if (!head.startsWith("{")) return parseTweetFeedCsv;
  return /^\{\s*"Event"/.test(head) ? parseMispEvent : parseStixBundle;
});
/** signature-base `iocs/`: the C2 list and the hash list (file names and regexes are not indicators). */
export const readSignatureBase = iocReader(/^(c2|hash)-iocs\.txt(\.gz)?$/i, (file) =>
  /hash/i.test(file.name) ? parseSignatureBaseHashes : parseSignatureBaseC2,
);
export const readMaltrail = iocReader(/\.(tar\.gz|tgz|tar)$/i, () => parseMaltrailTar);

/** `…/<name>/list.json`, on disk or in a URL. */
const WARNINGLIST_FILE = /(?:^|[/\\])([^/\\]+)[/\\]list\.json$/;
/** `<repository>-main/lists/<name>/list.json` inside the tarball. */
const TARBALL_LIST = /(?:^|\/)lists\/([^/]+)\/list\.json$/;

function parsedWarninglist(text: string, name: string, location: string): ParseResult<Warninglist> {
  try {
    return { ok: true, record: parseWarninglist(JSON.parse(text), name) };
  } catch (error) {
    return { ok: false, location, reason: (error as Error).message };
  }
}

/**
 * MISP warninglists: a `lists/` folder (or a checkout holding one), the
 * repository tarball, or single `lists/<name>/list.json` files. A list is
 * named by its folder; an unreadable list is rejected and the others load.
 */
export async function* readWarninglists(ctx: ReadContext): AsyncGenerator<ParseResult<Warninglist>> {
  for await (const file of feedFiles(ctx, (name) => name === "list.json" || /\.(tar\.gz|tgz|tar)$/i.test(name))) {
    const { head, stream } = await peek(await ctx.open(file));
    if (isTar(head)) {
      for await (const entry of tarEntries(stream)) {
        const name = TARBALL_LIST.exec(entry.name)?.[1];
        if (name === undefined) continue;
        yield parsedWarninglist(await readText(entry.body), name, `${file.name}:${entry.name}`);
      }
    } else {
      const name = WARNINGLIST_FILE.exec(file.location)?.[1] ?? basename(file.location, ".json");
      yield parsedWarninglist(await readText(stream), name, file.location);
    }
  }
}
