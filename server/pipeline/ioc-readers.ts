import type { Readable } from "node:stream";
import type { IocSighting } from "../../shared/types/ioc";
import type { FeedRecordResult, ParserOptions } from "../feeds/ioc/common";
import { parseFeodoCsv } from "../feeds/ioc/feodo";
import { parseMaltrailTar } from "../feeds/ioc/maltrail";
import { parseHashList, parseMalwareBazaarCsv } from "../feeds/ioc/malwarebazaar";
import { parseThreatFoxCsv, parseThreatFoxJson } from "../feeds/ioc/threatfox";
import { parseTweetFeedCsv } from "../feeds/ioc/tweetfeed";
import { parseUrlhausCsv } from "../feeds/ioc/urlhaus";
import type { ParseResult } from "./feed";
import { peek } from "./input";
import { feedFiles } from "./readers";
import type { FeedFile, ReadContext } from "./run";

type IocParser = (input: Readable, options: ParserOptions) => AsyncIterable<FeedRecordResult>;

/** IOC parsers name lines, not files; the file name makes a rejection findable. */
async function* inFile(file: FeedFile, results: AsyncIterable<FeedRecordResult>): AsyncGenerator<ParseResult<IocSighting>> {
  for await (const result of results) {
    yield result.ok ? result : { ok: false, location: `${file.name}:${result.location}`, reason: result.reason };
  }
}

/** Reads every file of the source with the parser `choose` picks for it (by name or first bytes). */
function iocReader(accept: RegExp, choose: (file: FeedFile, head: string) => IocParser) {
  return async function* read(ctx: ReadContext): AsyncGenerator<ParseResult<IocSighting>> {
    for await (const file of feedFiles(ctx, (name) => accept.test(name))) {
      const { head, stream } = await peek(await ctx.open(file));
      const parser = choose(file, head.subarray(0, 4096).toString("utf8").trimStart());
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
export const readTweetFeed = iocReader(CSV_OR_JSON, () => parseTweetFeedCsv);
export const readMaltrail = iocReader(/\.(tar\.gz|tgz|tar)$/i, () => parseMaltrailTar);
