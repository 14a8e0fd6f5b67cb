import type { IndicatorType } from "../../../shared/ioc/types";
import { parseKeyedCsv } from "../toolkit/csv";
import { streamJsonValues } from "../toolkit/json-stream";
import { rejected, type ParseResult } from "../toolkit/result";
import { textChunks, type FeedInput } from "../toolkit/stream";
import { confidence, normalizeFeedValue, quote, sighting, splitTags, text, toIsoUtc, type ParserOptions } from "./common";
import type { IocSighting } from "./sighting";

const DEFAULT_SOURCE = "threatfox";

/** ThreatFox `ioc_type` -> the indicator types its values may normalise to. */
const TYPE_MAP: Readonly<Record<string, readonly IndicatorType[]>> = {
  "ip:port": ["ipv4", "ipv6"],
  domain: ["domain"],
  url: ["url"],
  md5_hash: ["md5"],
  sha1_hash: ["sha1"],
  sha256_hash: ["sha256"],
  sha512_hash: ["sha512"],
};

const COLUMNS = [
  "first_seen_utc",
  "ioc_id",
  "ioc_value",
  "ioc_type",
  "threat_type",
  "fk_malware",
  "malware_alias",
  "malware_printable",
  "last_seen_utc",
  "confidence_level",
  "is_compromised",
  "reference",
  "tags",
  "anonymous",
  "reporter",
] as const;
// Exports made before ThreatFox added `is_compromised` have one column less.
const LEGACY_COLUMNS = COLUMNS.filter((column) => column !== "is_compromised");

interface ThreatFoxFields {
  id: string | null;
  value: string;
  type: string;
  threatType: unknown;
  malware: unknown;
  malwarePrintable: unknown;
  firstSeen: unknown;
  lastSeen: unknown;
  confidence: unknown;
  reference: unknown;
  tags: unknown;
  reporter: unknown;
}

function toSighting(source: string, location: string, fields: ThreatFoxFields): ParseResult<IocSighting> {
  const expected = TYPE_MAP[fields.type.trim().toLowerCase()];
  if (expected === undefined) return rejected(location, `unknown ioc_type ${quote(fields.type)}`);
  const value = normalizeFeedValue(fields.value, expected);
  if (!value.ok) return rejected(location, value.reason);
  // "unknown" is ThreatFox's placeholder family, not a family.
  const family = text(fields.malware)?.toLowerCase() === "unknown" ? null : text(fields.malwarePrintable);
  return sighting(source, fields.value, value, {
    location,
    firstSeen: toIsoUtc(fields.firstSeen),
    lastSeen: toIsoUtc(fields.lastSeen),
    threatType: text(fields.threatType),
    malwareFamily: family,
    tags: splitTags(fields.tags),
    confidence: confidence(fields.confidence),
    reporter: text(fields.reporter),
    reference: text(fields.reference) ?? (fields.id === null ? null : `https://threatfox.abuse.ch/ioc/${fields.id}/`),
  });
}

/** ThreatFox CSV export (full or recent), with or without `is_compromised`. */
export function parseThreatFoxCsv(input: FeedInput, options: ParserOptions = {}): AsyncGenerator<ParseResult<IocSighting>> {
  const source = options.source ?? DEFAULT_SOURCE;
  return parseKeyedCsv(
    input,
    (cells) => cells[0] === "first_seen_utc" && cells.includes("ioc_value"),
    (cells) => (cells.length === LEGACY_COLUMNS.length ? LEGACY_COLUMNS : COLUMNS),
    function* (record, location) {
      yield toSighting(source, location, {
        id: text(record.ioc_id),
        value: record.ioc_value ?? "",
        type: record.ioc_type ?? "",
        threatType: record.threat_type,
        malware: record.fk_malware,
        malwarePrintable: record.malware_printable,
        firstSeen: record.first_seen_utc,
        lastSeen: record.last_seen_utc,
        confidence: record.confidence_level,
        reference: record.reference,
        tags: record.tags,
        reporter: record.reporter,
      });
    },
  );
}

/**
 * ThreatFox JSON export: `{"<ioc id>": [{ioc_value, ioc_type, …}], …}`,
 * streamed one IOC at a time.
 */
export async function* parseThreatFoxJson(input: FeedInput, options: ParserOptions = {}): AsyncGenerator<ParseResult<IocSighting>> {
  const source = options.source ?? DEFAULT_SOURCE;
  for await (const { path, value } of streamJsonValues(textChunks(input), (p) => p.length === 2)) {
    const id = String(path[0]);
    const location = `ioc ${id}`;
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      yield rejected(location, "entry is not an object");
      continue;
    }
    const entry = value as Record<string, unknown>;
    if (typeof entry.ioc_value !== "string" || typeof entry.ioc_type !== "string") {
      yield rejected(location, "missing ioc_value or ioc_type");
      continue;
    }
    yield toSighting(source, location, {
      id,
      value: entry.ioc_value,
      type: entry.ioc_type,
      threatType: entry.threat_type,
      malware: entry.malware,
      malwarePrintable: entry.malware_printable,
      firstSeen: entry.first_seen_utc,
      lastSeen: entry.last_seen_utc,
      confidence: entry.confidence_level,
      reference: entry.reference,
      tags: entry.tags,
      reporter: entry.reporter,
    });
  }
}
