import { parseKeyedCsv } from "../toolkit/csv";
import { rejected, type ParseResult } from "../toolkit/result";
import type { FeedInput } from "../toolkit/stream";
import { normalizeFeedValue, sighting, splitTags, text, toIsoUtc, type ParserOptions } from "./common";
import type { IocSighting } from "./sighting";

const DEFAULT_SOURCE = "urlhaus";
const COLUMNS = ["id", "dateadded", "url", "url_status", "last_online", "threat", "tags", "urlhaus_link", "reporter"];

/** URLhaus CSV dump (full, recent or online): one URL per row. */
export function parseUrlhausCsv(input: FeedInput, options: ParserOptions = {}): AsyncGenerator<ParseResult<IocSighting>> {
  const source = options.source ?? DEFAULT_SOURCE;
  return parseKeyedCsv(
    input,
    (cells) => cells[0] === "id" && cells.includes("urlhaus_link"),
    () => COLUMNS,
    function* (record, location) {
      const raw = record.url ?? "";
      const value = normalizeFeedValue(raw, ["url"]);
      if (!value.ok) {
        yield rejected(location, value.reason);
        return;
      }
      yield sighting(source, raw, value, {
        location,
        firstSeen: toIsoUtc(record.dateadded),
        lastSeen: toIsoUtc(record.last_online),
        threatType: text(record.threat),
        tags: splitTags(record.tags),
        reporter: text(record.reporter),
        reference: text(record.urlhaus_link),
      });
    },
  );
}
