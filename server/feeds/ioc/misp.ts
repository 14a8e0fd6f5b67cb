import { parsePort } from "../../../shared/ioc/ip";
import type { IndicatorType } from "../../../shared/ioc/types";
import { tarFiles } from "../toolkit/archive";
import { rejected, type ParseResult } from "../toolkit/result";
import { readText, type FeedInput } from "../toolkit/stream";
import { normalizeFeedValue, quote, sighting, splitTags, text, toIsoUtc, type ParserOptions } from "./common";
import type { IocSighting } from "./sighting";

const DEFAULT_SOURCE = "misp";
/**
 * Event files are parsed whole because event-level fields may come after the
 * attribute list; a MISP feed keeps one event per file, which bounds this.
 */
export const MAX_EVENT_FILE_BYTES = 256 * 1024 * 1024;

const IP: readonly IndicatorType[] = ["ipv4", "ipv6", "cidr"];
const DOMAIN: readonly IndicatorType[] = ["domain"];

/** MISP attribute type -> indicator types. Types not listed are not indicators here (text, link, filename …). */
const ATTRIBUTE_TYPES: Readonly<Record<string, readonly IndicatorType[]>> = {
  "ip-dst": IP,
  "ip-src": IP,
  domain: DOMAIN,
  hostname: DOMAIN,
  url: ["url"],
  md5: ["md5"],
  sha1: ["sha1"],
  sha256: ["sha256"],
  sha512: ["sha512"],
  email: ["email"],
  "email-src": ["email"],
  "email-dst": ["email"],
};

/** Composite "a|b" types: which part is which. */
const COMPOSITE_TYPES: Readonly<Record<string, ReadonlyArray<readonly IndicatorType[] | "port" | null>>> = {
  "ip-dst|port": [IP, "port"],
  "ip-src|port": [IP, "port"],
  "hostname|port": [DOMAIN, "port"],
  "domain|ip": [DOMAIN, IP],
  "filename|md5": [null, ["md5"]],
  "filename|sha1": [null, ["sha1"]],
  "filename|sha256": [null, ["sha256"]],
  "filename|sha512": [null, ["sha512"]],
};

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function tagNames(value: unknown): string[] {
  return Array.isArray(value) ? splitTags(value.map((tag) => (isObject(tag) ? tag.name : null))) : [];
}

interface EventContext {
  source: string;
  reporter: string | null;
  location: string;
}

function* attributeRecords(attribute: Json, index: string, event: EventContext): Generator<ParseResult<IocSighting>> {
  const location = `${event.location} attribute ${typeof attribute.uuid === "string" ? attribute.uuid : index}`;
  if (attribute.deleted === true) return;
  const type = typeof attribute.type === "string" ? attribute.type : "";
  const raw = typeof attribute.value === "string" ? attribute.value : null;
  const single = ATTRIBUTE_TYPES[type];
  const composite = COMPOSITE_TYPES[type];
  if (single === undefined && composite === undefined) return;
  if (raw === null) {
    yield rejected(location, "attribute without a value");
    return;
  }
  const comment = text(attribute.comment);
  const tags = tagNames(attribute.Tag);
  const fields = {
    firstSeen: toIsoUtc(attribute.first_seen) ?? toIsoUtc(attribute.timestamp),
    lastSeen: toIsoUtc(attribute.last_seen) ?? toIsoUtc(attribute.timestamp),
    tags,
    reporter: event.reporter,
    reference: comment !== null && /^https?:\/\/\S+$/.test(comment) ? comment : null,
    cveTexts: [comment],
    location,
  };

  if (single !== undefined) {
    const value = normalizeFeedValue(raw, single);
    yield value.ok ? sighting(event.source, raw, value, fields) : rejected(location, value.reason);
    return;
  }
  const parts = raw.split("|");
  if (composite === undefined || parts.length !== composite.length) {
    yield rejected(location, `${type} value ${quote(raw)} does not have ${composite?.length ?? 2} parts`);
    return;
  }
  const portIndex = composite.indexOf("port");
  const port = portIndex < 0 ? null : parsePort((parts[portIndex] ?? "").trim());
  if (portIndex >= 0 && port === null) {
    yield rejected(location, `invalid port in ${quote(raw)}`);
    return;
  }
  for (const [i, expected] of composite.entries()) {
    if (expected === null || expected === "port") continue;
    const part = (parts[i] ?? "").trim();
    const value = normalizeFeedValue(part, expected);
    if (!value.ok) {
      yield rejected(location, value.reason);
      continue;
    }
    yield sighting(event.source, part, { indicator: value.indicator, port: port ?? value.port }, fields);
  }
}

function* eventRecords(document: unknown, location: string, source: string): Generator<ParseResult<IocSighting>> {
  const event = isObject(document) && isObject(document.Event) ? document.Event : null;
  if (event === null) {
    yield rejected(location, "not a MISP event (no Event object)");
    return;
  }
  const context: EventContext = {
    source,
    reporter: isObject(event.Orgc) ? text(event.Orgc.name) : null,
    location,
  };
  const attributes = Array.isArray(event.Attribute) ? event.Attribute : [];
  for (const [i, attribute] of attributes.entries()) {
    if (isObject(attribute)) yield* attributeRecords(attribute, String(i), context);
  }
  const objects = Array.isArray(event.Object) ? event.Object : [];
  for (const [i, object] of objects.entries()) {
    if (!isObject(object) || !Array.isArray(object.Attribute)) continue;
    for (const [j, attribute] of object.Attribute.entries()) {
      if (isObject(attribute)) yield* attributeRecords(attribute, `${i}.${j}`, context);
    }
  }
}

/** One MISP event document (`{"Event": {…, "Attribute": […], "Object": […]}}`). */
export async function* parseMispEvent(input: FeedInput, options: ParserOptions & { location?: string } = {}): AsyncGenerator<ParseResult<IocSighting>> {
  const location = options.location ?? "event";
  let document: unknown;
  try {
    document = JSON.parse(await readText(input));
  } catch (error) {
    yield rejected(location, `invalid JSON: ${(error as Error).message}`);
    return;
  }
  yield* eventRecords(document, location, options.source ?? DEFAULT_SOURCE);
}

/** One event a MISP feed's `manifest.json` lists. */
export interface MispManifestEntry {
  uuid: string;
  /** The event's `timestamp` (seconds since the epoch): it changes whenever the event does. */
  timestamp: number;
  date: string | null;
  info: string | null;
}

export interface MispManifest {
  /** Oldest change first (then by uuid), the order an incremental sync takes them in. */
  events: MispManifestEntry[];
  rejected: Array<{ location: string; reason: string }>;
}

const EVENT_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * A MISP feed's `manifest.json`: `{"<event uuid>": {info, date, timestamp,
 * Orgc, Tag, …}, …}`. The uuid becomes part of the event's file name, so a key
 * that is not a UUID (which could point outside the feed) is rejected, as is
 * an entry without a numeric timestamp. Throws when the document is not a
 * manifest at all, which fails the import.
 */
export function parseMispManifest(content: string, location = "manifest.json"): MispManifest {
  let document: unknown;
  try {
    document = JSON.parse(content);
  } catch (error) {
    throw new Error(`${location}: not a MISP feed manifest (invalid JSON: ${(error as Error).message})`, { cause: error });
  }
  if (!isObject(document)) throw new Error(`${location}: not a MISP feed manifest (expected an object of events)`);
  const events: MispManifestEntry[] = [];
  const rejected: MispManifest["rejected"] = [];
  for (const [uuid, entry] of Object.entries(document)) {
    const where = `${location} ${quote(uuid)}`;
    if (!EVENT_UUID.test(uuid)) {
      rejected.push({ location: where, reason: "event key is not a UUID" });
      continue;
    }
    const timestamp = isObject(entry) ? Number(entry.timestamp) : Number.NaN;
    if (!Number.isSafeInteger(timestamp) || timestamp < 0) {
      rejected.push({ location: where, reason: "event without a numeric timestamp" });
      continue;
    }
    const fields = entry as Json;
    events.push({ uuid: uuid.toLowerCase(), timestamp, date: text(fields.date), info: text(fields.info) });
  }
  events.sort((a, b) => a.timestamp - b.timestamp || (a.uuid < b.uuid ? -1 : a.uuid > b.uuid ? 1 : 0));
  return { events, rejected };
}

/**
 * A MISP feed as a (gzipped) tar of the feed directory: `manifest.json`,
 * `hashes.csv` and one `<event uuid>.json` per event. Only indicator
 * attributes are yielded; other attribute types are skipped silently.
 */
export async function* parseMispFeedTar(input: FeedInput, options: ParserOptions = {}): AsyncGenerator<ParseResult<IocSighting>> {
  for await (const entry of tarFiles(input)) {
    const base = entry.name.slice(entry.name.lastIndexOf("/") + 1);
    if (!base.endsWith(".json") || base === "manifest.json") continue;
    if (entry.size > MAX_EVENT_FILE_BYTES) {
      yield rejected(entry.name, `event file of ${entry.size} bytes exceeds ${MAX_EVENT_FILE_BYTES}`);
      continue;
    }
    yield* parseMispEvent(entry.body, { ...options, location: entry.name });
  }
}
