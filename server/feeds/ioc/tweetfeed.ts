import type { IndicatorType } from "../../../shared/ioc/types";
import { csvRows } from "../toolkit/csv";
import { rejected, type ParseResult } from "../toolkit/result";
import type { FeedInput } from "../toolkit/stream";
import { normalizeFeedValue, quote, sighting, splitTags, text, toIsoUtc, type ParserOptions } from "./common";
import type { IocSighting } from "./sighting";

const DEFAULT_SOURCE = "tweetfeed";

/** TweetFeed `type` -> the indicator types its values may normalise to. */
const TYPE_MAP: Readonly<Record<string, readonly IndicatorType[]>> = {
  ip: ["ipv4", "ipv6"],
  domain: ["domain"],
  url: ["url"],
  md5: ["md5"],
  sha1: ["sha1"],
  sha256: ["sha256"],
};

/**
 * TweetFeed CSV (daily files, today/week/month): no header, columns
 * `date,user,type,value,tags,tweet_url`; tags are space-separated hashtags.
 * A row is one tweet, so first and last seen are both the tweet's time.
 */
export async function* parseTweetFeedCsv(input: FeedInput, options: ParserOptions = {}): AsyncGenerator<ParseResult<IocSighting>> {
  const source = options.source ?? DEFAULT_SOURCE;
  for await (const rows of csvRows(input, () => false))
    for (const row of rows) {
      const location = `line ${row.line}`;
      if (!row.ok) {
        yield rejected(location, row.reason);
        continue;
      }
      if (row.cells.length !== 6) {
        yield rejected(location, `expected 6 columns, got ${row.cells.length}`);
        continue;
      }
      const [date, user, type, raw = "", tags, tweetUrl] = row.cells;
      const expected = TYPE_MAP[(type ?? "").trim().toLowerCase()];
      if (expected === undefined) {
        yield rejected(location, `unknown type ${quote(type ?? "")}`);
        continue;
      }
      const value = normalizeFeedValue(raw, expected);
      if (!value.ok) {
        yield rejected(location, value.reason);
        continue;
      }
      const seen = toIsoUtc(date);
      yield sighting(source, raw, value, {
        location,
        firstSeen: seen,
        lastSeen: seen,
        tags: splitTags(tags, /\s+/),
        reporter: text(user),
        reference: text(tweetUrl),
      });
    }
}
