import { parsePort } from "../../../shared/ioc/ip";
import { parseKeyedCsv } from "../toolkit/csv";
import { rejected, type ParseResult } from "../toolkit/result";
import type { FeedInput } from "../toolkit/stream";
import { normalizeFeedValue, quote, sighting, text, toIsoUtc, type ParserOptions } from "./common";
import type { IocSighting } from "./sighting";

const DEFAULT_SOURCE = "feodotracker";
const COLUMNS = ["first_seen_utc", "dst_ip", "dst_port", "c2_status", "last_online", "malware"];

/**
 * Feodo Tracker botnet C2 IP blocklist (CSV). Every row is a C2 server, so
 * the threat type is always "botnet_cc"; `last_online` is a date only.
 */
export function parseFeodoCsv(input: FeedInput, options: ParserOptions = {}): AsyncGenerator<ParseResult<IocSighting>> {
  const source = options.source ?? DEFAULT_SOURCE;
  return parseKeyedCsv(
    input,
    (cells) => cells[0] === "first_seen_utc" && cells.includes("dst_ip"),
    () => COLUMNS,
    function* (record, location) {
      const raw = record.dst_ip ?? "";
      const value = normalizeFeedValue(raw, ["ipv4", "ipv6"]);
      if (!value.ok) {
        yield rejected(location, value.reason);
        return;
      }
      const portText = text(record.dst_port);
      const port = portText === null ? null : parsePort(portText);
      if (portText !== null && port === null) {
        yield rejected(location, `invalid dst_port ${quote(portText)}`);
        return;
      }
      const firstSeen = toIsoUtc(record.first_seen_utc);
      const lastOnline = toIsoUtc(record.last_online);
      yield sighting(
        source,
        raw,
        { indicator: value.indicator, port },
        {
          location,
          firstSeen,
          // `last_online` is a day: a C2 first seen at 07:03 on its last day online was seen until 07:03 at least,
          // not last seen at midnight before it was first seen (ISO times order as text).
          lastSeen: firstSeen !== null && lastOnline !== null && lastOnline < firstSeen ? firstSeen : lastOnline,
          threatType: "botnet_cc",
          malwareFamily: text(record.malware),
        },
      );
    },
  );
}
