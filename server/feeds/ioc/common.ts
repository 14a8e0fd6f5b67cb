import { normalizeDomain } from "../../../shared/ioc/domain";
import { parseIpPort, parsePort } from "../../../shared/ioc/ip";
import { normalizeIndicator } from "../../../shared/ioc/normalize";
import type { Indicator, IndicatorType } from "../../../shared/ioc/types";
import type { IocSighting } from "./sighting";
import { rejected, type ParseResult } from "../toolkit/result";

export interface ParserOptions {
  /** Feed id written to every record; each parser has a sensible default. */
  source?: string;
  /** Told when the publisher last updated the feed, where the file says (an ISO time). */
  onPublished?: (at: string) => void;
}

const MAX_QUOTED_VALUE = 120;

/** A feed value for an error message: quoted and cut short. */
export function quote(value: string): string {
  const short = value.length > MAX_QUOTED_VALUE ? `${value.slice(0, MAX_QUOTED_VALUE)}…` : value;
  return JSON.stringify(short);
}

export type NormalizedValue = { ok: true; indicator: Indicator; port: number | null } | { ok: false; reason: string };

const HOST_PORT = /^([^:/[\]]+):(\d{1,5})$/;

/**
 * Normalises a feed value and checks it against the types the feed says it
 * has. An "ip:port" becomes the bare IP with the port kept aside, because an
 * indicator page is keyed by the IP; "domain:port" likewise.
 */
export function normalizeFeedValue(raw: string, expected: readonly IndicatorType[]): NormalizedValue {
  let indicator = normalizeIndicator(raw);
  let port: number | null = null;
  if (indicator === null) {
    const hostPort = HOST_PORT.exec(raw.trim());
    const domain = hostPort?.[1] === undefined ? null : normalizeDomain(hostPort[1]);
    const domainPort = hostPort?.[2] === undefined ? null : parsePort(hostPort[2]);
    if (domain === null || domainPort === null) return { ok: false, reason: `not a valid indicator: ${quote(raw)}` };
    indicator = { type: "domain", value: domain };
    port = domainPort;
  }
  if (indicator.type === "ip:port" && !expected.includes("ip:port")) {
    const split = parseIpPort(indicator.value);
    if (split !== null) {
      indicator = { type: split.version === 4 ? "ipv4" : "ipv6", value: split.ip };
      port = split.port;
    }
  }
  if (!expected.includes(indicator.type)) {
    return { ok: false, reason: `expected ${expected.join(" or ")}, got ${indicator.type} ${quote(raw)}` };
  }
  return { ok: true, indicator, port };
}

/** For feeds that do not say what a value is: every type but "ip:port", which is split into IP and port. */
export const ANY_TYPE: readonly IndicatorType[] = ["ipv4", "ipv6", "cidr", "domain", "url", "email", "md5", "sha1", "sha256", "sha512"];

const NULL_WORDS = new Set(["", "none", "null", "n/a", "-"]);

/** Trimmed text, or null for the empty markers feeds use ("None", "n/a", ""). */
export function text(value: unknown): string | null {
  if (typeof value === "number") return String(value);
  if (typeof value !== "string") return null;
  const trimmed = value.trim();
  return NULL_WORDS.has(trimmed.toLowerCase()) ? null : trimmed;
}

const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3})\d*)?)?(?:\s*UTC|Z)?)?$/i;
const DATE_TIME_WITH_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?[+-]\d{2}:?\d{2}$/;
const UNIX_SECONDS = /^\d{9,11}$/;

function daysInMonth(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** Formats the matched fields directly: building a Date per record is several times slower. */
function fromUtcFields(match: RegExpExecArray): string | null {
  const [, year = "", month = "", day = "", hour = "00", minute = "00", second = "00", fraction = "0"] = match;
  const m = Number(month);
  const valid =
    m >= 1 && m <= 12 && Number(day) >= 1 && Number(day) <= daysInMonth(Number(year), m) && Number(hour) <= 23 && Number(minute) <= 59 && Number(second) <= 59;
  return valid ? `${year}-${month}-${day}T${hour}:${minute}:${second}.${fraction.padEnd(3, "0")}Z` : null;
}

/**
 * Feed timestamps to ISO 8601 UTC. Zone-less values are UTC: every feed here
 * documents its times as UTC (abuse.ch "_utc" columns, TweetFeed). A date
 * without a time means the start of that day. Unparseable -> null.
 */
export function toIsoUtc(value: unknown): string | null {
  if (typeof value === "number") return Number.isFinite(value) ? isoOrNull(new Date(value * 1000)) : null;
  const raw = text(value);
  if (raw === null) return null;
  const match = DATE_TIME.exec(raw);
  if (match !== null) return fromUtcFields(match);
  if (UNIX_SECONDS.test(raw)) return isoOrNull(new Date(Number(raw) * 1000));
  if (DATE_TIME_WITH_OFFSET.test(raw)) return isoOrNull(new Date(raw));
  return null;
}

function isoOrNull(date: Date): string | null {
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
}

/** Splits a tag field ("a,b", "a, b", "#a #b"), dropping empties, "None" and a leading "#". */
export function splitTags(value: unknown, separator: string | RegExp = ","): string[] {
  if (Array.isArray(value)) return uniqueTags(value.filter((v): v is string => typeof v === "string"));
  const raw = text(value);
  if (raw === null) return [];
  return uniqueTags(raw.split(separator));
}

function uniqueTags(values: readonly string[]): string[] {
  const tags: string[] = [];
  for (const value of values) {
    const tag = text(value.trim().replace(/^#+/, ""));
    if (tag !== null && !tags.includes(tag)) tags.push(tag);
  }
  return tags;
}

const CVE_ID = /\bCVE-\d{4}-\d{4,}\b/gi;
// Most texts mention no CVE; this cheap test skips the global-regex walk for them.
const CVE_HINT = /cve-/i;

/** CVE ids mentioned anywhere in the given texts, upper-case, de-duplicated. */
export function findCves(...groups: ReadonlyArray<ReadonlyArray<string | null>>): string[] {
  const cves: string[] = [];
  for (const texts of groups) {
    for (const value of texts) {
      if (value === null || !CVE_HINT.test(value)) continue;
      for (const match of value.matchAll(CVE_ID)) {
        const id = match[0].toUpperCase();
        if (!cves.includes(id)) cves.push(id);
      }
    }
  }
  return cves;
}

/** 0-100 confidence, or null when absent or out of range. */
export function confidence(value: unknown): number | null {
  const number = typeof value === "number" ? value : Number(text(value) ?? Number.NaN);
  return Number.isFinite(number) && number >= 0 && number <= 100 ? number : null;
}

/** The sighting's fields a feed states (absent ones become null or empty), and what `sighting` needs to build the rest. */
export interface SightingFields extends Partial<
  Pick<IocSighting, "firstSeen" | "lastSeen" | "threatType" | "malwareFamily" | "tags" | "confidence" | "reporter" | "reference" | "aliases">
> {
  /** Extra texts to search for CVE ids besides the tags. */
  cveTexts?: ReadonlyArray<string | null>;
  /** Where the record is, should it have to be rejected. */
  location?: string;
}

// A value or tag holding these is damaged text (a broken encoding, a binary file), not what the publisher meant.
const DAMAGED_TEXT = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f\ufffd]/;

/** Builds the record, filling the fields a feed does not have with null. */
export function sighting(
  source: string,
  rawValue: string,
  value: { indicator: Indicator; port: number | null },
  fields: SightingFields,
): ParseResult<IocSighting> {
  const tags = fields.tags ?? [];
  const damaged = [rawValue, ...tags, ...(fields.aliases ?? []), fields.malwareFamily ?? "", fields.threatType ?? ""].find((text) => DAMAGED_TEXT.test(text));
  if (damaged !== undefined) return rejected(fields.location ?? "", `control character or U+FFFD in ${quote(damaged)}`);
  return {
    ok: true,
    record: {
      source,
      indicator: value.indicator,
      rawValue,
      firstSeen: fields.firstSeen ?? null,
      lastSeen: fields.lastSeen ?? null,
      threatType: fields.threatType ?? null,
      malwareFamily: fields.malwareFamily ?? null,
      tags,
      confidence: fields.confidence ?? null,
      reporter: fields.reporter ?? null,
      reference: fields.reference ?? null,
      port: value.port,
      cves: findCves(tags, fields.cveTexts ?? []),
      aliases: fields.aliases ?? [],
    },
  };
}
