import ipaddr from "ipaddr.js";
import { parseIpPort } from "../../shared/ioc/ip";
import type { Indicator, IndicatorType, WarninglistType } from "../../shared/ioc/types";
import type { WarninglistInput } from "../feeds/warninglists/parse";
import { parseUrl } from "../../shared/ioc/url";

/**
 * Matching of indicators against MISP warninglists (known-benign values and
 * ranges), following MISP's own semantics per list type:
 * - string: exact match (case-insensitive here; a URL's host is compared too),
 * - hostname: the host equals an entry or is a subdomain of it,
 * - cidr: the IP (of an address, an ip:port, or a URL on an IP) or a whole
 *   CIDR lies inside a range,
 * - substring: an entry occurs in the value (case-insensitive),
 * - regex: a PCRE-style entry ("/…/i" or bare) matches the value.
 * A list's `matchingAttributes` (MISP attribute types) limit which
 * indicators it applies to; without them it applies to all.
 */

export interface WarninglistMatch {
  list: string;
  type: WarninglistType;
  entry: string;
}

export interface SkippedEntry {
  list: string;
  entry: string;
  reason: string;
}

export interface WarninglistMatcher {
  /** At most one match per list: its most specific entry. */
  match(indicator: Indicator): WarninglistMatch[];
  /** Entries that could not be used (bad CIDR, invalid regex). */
  readonly skipped: readonly SkippedEntry[];
}

/** MISP attribute types each indicator type stands for. */
const MISP_TYPES: Readonly<Record<IndicatorType, readonly string[]>> = {
  ipv4: ["ip-src", "ip-dst"],
  ipv6: ["ip-src", "ip-dst"],
  cidr: ["ip-src", "ip-dst"],
  "ip:port": ["ip-src|port", "ip-dst|port"],
  domain: ["domain", "hostname"],
  url: ["url", "uri", "link"],
  email: ["email", "email-src", "email-dst"],
  md5: ["md5", "filename|md5"],
  sha1: ["sha1", "filename|sha1"],
  sha256: ["sha256", "filename|sha256"],
  sha512: ["sha512", "filename|sha512"],
};

interface ListInfo {
  name: string;
  type: WarninglistType;
  /** null: applies to every indicator type. */
  applies: ReadonlySet<IndicatorType> | null;
}

interface Hit {
  list: number;
  entry: string;
  /** Larger is more specific (prefix length, label count). */
  specificity: number;
}

/** Stabbing index over closed intervals: which intervals contain a point. */
class IntervalIndex<T extends number | bigint> {
  private starts: T[] = [];
  private ends: T[] = [];
  private hits: Hit[] = [];
  /** maxEnd[i] = largest end among intervals 0..i (sorted by start), so a scan can stop early. */
  private maxEnd: T[] = [];
  private pending: Array<{ start: T; end: T; hit: Hit }> = [];

  add(start: T, end: T, hit: Hit): void {
    this.pending.push({ start, end, hit });
  }

  build(): void {
    this.pending.sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : 0));
    this.starts = this.pending.map((item) => item.start);
    this.ends = this.pending.map((item) => item.end);
    this.hits = this.pending.map((item) => item.hit);
    this.maxEnd = [];
    for (const [i, end] of this.ends.entries()) {
      const previous = this.maxEnd[i - 1];
      this.maxEnd.push(previous !== undefined && previous > end ? previous : end);
    }
    this.pending = [];
  }

  /** Intervals containing [low, high] (a point when low === high). */
  containing(low: T, high: T, out: Hit[]): void {
    let lo = 0;
    let hi = this.starts.length - 1;
    let last = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if ((this.starts[mid] as T) <= low) {
        last = mid;
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    for (let i = last; i >= 0 && (this.maxEnd[i] as T) >= high; i -= 1) {
      if ((this.ends[i] as T) >= high) out.push(this.hits[i] as Hit);
    }
  }
}

function ipv4ToNumber(address: ipaddr.IPv4): number {
  const [a = 0, b = 0, c = 0, d = 0] = address.octets;
  return ((a << 24) | (b << 16) | (c << 8) | d) >>> 0;
}

function ipv6ToBigInt(address: ipaddr.IPv6): bigint {
  let value = 0n;
  for (const part of address.parts) value = (value << 16n) | BigInt(part);
  return value;
}

type ParsedRange = { version: 4; start: number; end: number; prefix: number } | { version: 6; start: bigint; end: bigint; prefix: number };

const IPV4_RANGE = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})(?:\/(\d{1,2}))?$/;

function ipv4Range(start: number, prefix: number): ParsedRange {
  const hostBits = 32 - prefix;
  const network = hostBits === 32 ? 0 : ((start >>> hostBits) << hostBits) >>> 0;
  return { version: 4, start: network, end: network + 2 ** hostBits - 1, prefix };
}

/** An address or CIDR ("8.8.8.8", "10.0.0.0/8", "FE80::/10") as a numeric range. */
function parseRange(text: string): ParsedRange | null {
  const value = text.trim();
  // Plain IPv4 without ipaddr.js: the lists hold ~110k of them and the
  // matcher is rebuilt on every warninglist import.
  const v4 = IPV4_RANGE.exec(value);
  if (v4 !== null) {
    const octets = v4.slice(1, 5).map(Number);
    const prefix = v4[5] === undefined ? 32 : Number(v4[5]);
    if (octets.some((octet) => octet > 255) || prefix > 32) return null;
    const [a = 0, b = 0, c = 0, d = 0] = octets;
    return ipv4Range(((a << 24) | (b << 16) | (c << 8) | d) >>> 0, prefix);
  }
  let address: ipaddr.IPv4 | ipaddr.IPv6;
  let prefix: number;
  try {
    if (value.includes("/")) [address, prefix] = ipaddr.parseCIDR(value);
    else {
      address = ipaddr.parse(value);
      prefix = address.kind() === "ipv4" ? 32 : 128;
    }
  } catch {
    return null;
  }
  if (address instanceof ipaddr.IPv6 && address.isIPv4MappedAddress()) {
    address = address.toIPv4Address();
    prefix = Math.max(0, prefix - 96);
  }
  if (address instanceof ipaddr.IPv4) return ipv4Range(ipv4ToNumber(address), prefix);
  const hostBits = BigInt(128 - prefix);
  const start = (ipv6ToBigInt(address) >> hostBits) << hostBits;
  return { version: 6, start, end: start + (1n << hostBits) - 1n, prefix };
}

/** "/^foo$/i" -> RegExp(^foo$, i); a bare pattern is used as is. */
function compileRegex(entry: string): RegExp | string {
  const delimited = /^([^\w\s\\])(.*)\1([a-zA-Z]*)$/s.exec(entry);
  const source = delimited?.[2] ?? entry;
  const flags = delimited?.[3] ?? "";
  if (/[^imsu]/.test(flags)) return `unsupported regex flags "${flags}"`;
  try {
    return new RegExp(source, flags);
  } catch (error) {
    return (error as Error).message;
  }
}

function normalizeHostEntry(entry: string): string {
  const host = entry.trim().toLowerCase();
  let start = 0;
  let end = host.length;
  while (start < end && host[start] === ".") start += 1;
  while (end > start && host[end - 1] === ".") end -= 1;
  return host.slice(start, end);
}

function pushAll<K>(map: Map<K, Hit[]>, key: K, hit: Hit): void {
  const existing = map.get(key);
  if (existing === undefined) map.set(key, [hit]);
  else existing.push(hit);
}

interface Facets {
  value: string;
  host: string | null;
  ip: { version: 4; value: number } | { version: 6; value: bigint } | null;
  range: ParsedRange | null;
  /** The IP facet comes from a URL's host: cidr lists apply whatever their attributes say. */
  ipFromUrl: boolean;
}

function facetsOf(indicator: Indicator): Facets {
  const facets: Facets = { value: indicator.value, host: null, ip: null, range: null, ipFromUrl: false };
  const setIp = (text: string): void => {
    const range = parseRange(text);
    if (range === null) return;
    facets.ip = range.version === 4 ? { version: 4, value: range.start } : { version: 6, value: range.start };
  };
  switch (indicator.type) {
    case "ipv4":
    case "ipv6":
      setIp(indicator.value);
      break;
    case "ip:port": {
      const split = parseIpPort(indicator.value);
      if (split !== null) setIp(split.ip);
      break;
    }
    case "cidr":
      facets.range = parseRange(indicator.value);
      break;
    case "domain":
      facets.host = indicator.value;
      break;
    case "email":
      facets.host = indicator.value.slice(indicator.value.lastIndexOf("@") + 1);
      break;
    case "url": {
      const parts = parseUrl(indicator.value);
      if (parts === null) break;
      if (parts.hostKind === "name") facets.host = parts.host;
      else {
        setIp(parts.host);
        facets.ipFromUrl = true;
      }
      break;
    }
    default:
      break;
  }
  return facets;
}

export function buildWarninglistMatcher(lists: readonly WarninglistInput[]): WarninglistMatcher {
  const builder = matcherBuilder();
  for (const list of lists) builder.addEntries(builder.addList(list), list.entries);
  return builder.finish();
}

/** Entries indexed between two turns of the event loop: a few milliseconds of work. */
const ENTRIES_PER_TURN = 5_000;

/**
 * The same matcher, built a slice at a time: the lists hold about 120,000
 * entries, and building them in one go held the server's event loop for
 * 0.3–0.8 s (health checks unanswered) on the first IOC request after every
 * warninglist import.
 */
export async function buildWarninglistMatcherInTurns(lists: readonly WarninglistInput[]): Promise<WarninglistMatcher> {
  const builder = matcherBuilder();
  for (const list of lists) {
    const index = builder.addList(list);
    for (let start = 0; start < list.entries.length; start += ENTRIES_PER_TURN) {
      builder.addEntries(index, list.entries.slice(start, start + ENTRIES_PER_TURN));
      await new Promise((resume) => setImmediate(resume));
    }
  }
  return builder.finish();
}

function matcherBuilder() {
  const infos: ListInfo[] = [];
  const skipped: SkippedEntry[] = [];
  const v4 = new IntervalIndex<number>();
  const v6 = new IntervalIndex<bigint>();
  const strings = new Map<string, Hit[]>();
  const hostnames = new Map<string, Hit[]>();
  const substrings: Hit[] = [];
  const regexes: Array<{ hit: Hit; regex: RegExp }> = [];

  const addList = (list: WarninglistInput): number => {
    const attributes = list.matchingAttributes ?? [];
    const applies =
      attributes.length === 0
        ? null
        : new Set((Object.keys(MISP_TYPES) as IndicatorType[]).filter((type) => MISP_TYPES[type].some((mispType) => attributes.includes(mispType))));
    infos.push({ name: list.name, type: list.type, applies });
    return infos.length - 1;
  };

  const addEntries = (index: number, entries: readonly string[]): void => {
    const list = infos[index] as ListInfo;
    for (const entry of entries) {
      if (entry.trim() === "") continue;
      switch (list.type) {
        case "cidr": {
          const range = parseRange(entry);
          if (range === null) {
            skipped.push({ list: list.name, entry, reason: "not an IP address or CIDR" });
          } else if (range.version === 4) {
            v4.add(range.start, range.end, { list: index, entry, specificity: range.prefix });
          } else {
            v6.add(range.start, range.end, { list: index, entry, specificity: range.prefix });
          }
          break;
        }
        case "string":
          pushAll(strings, entry.trim().toLowerCase(), { list: index, entry, specificity: 0 });
          break;
        case "hostname": {
          const host = normalizeHostEntry(entry);
          pushAll(hostnames, host, { list: index, entry, specificity: host.split(".").length });
          break;
        }
        case "substring":
          substrings.push({ list: index, entry, specificity: entry.length });
          break;
        case "regex": {
          const regex = compileRegex(entry);
          if (typeof regex === "string") skipped.push({ list: list.name, entry, reason: regex });
          else regexes.push({ hit: { list: index, entry, specificity: 0 }, regex });
          break;
        }
      }
    }
  };

  const finish = (): WarninglistMatcher => {
    v4.build();
    v6.build();
    return { match, skipped };
  };

  const appliesTo = (info: ListInfo, type: IndicatorType): boolean => info.applies === null || info.applies.has(type);

  function match(indicator: Indicator): WarninglistMatch[] {
    const facets = facetsOf(indicator);
    const hits: Hit[] = [];
    if (facets.ip !== null) {
      if (facets.ip.version === 4) v4.containing(facets.ip.value, facets.ip.value, hits);
      else v6.containing(facets.ip.value, facets.ip.value, hits);
    } else if (facets.range !== null) {
      if (facets.range.version === 4) v4.containing(facets.range.start, facets.range.end, hits);
      else v6.containing(facets.range.start, facets.range.end, hits);
    }
    const lower = facets.value.toLowerCase();
    for (const key of facets.host === null || facets.host === lower ? [lower] : [lower, facets.host]) {
      const found = strings.get(key);
      if (found !== undefined) hits.push(...found);
    }
    if (facets.host !== null) {
      const labels = facets.host.split(".");
      for (let i = 0; i < labels.length; i += 1) {
        const found = hostnames.get(labels.slice(i).join("."));
        if (found !== undefined) hits.push(...found);
      }
    }
    for (const hit of substrings) if (lower.includes(hit.entry.toLowerCase())) hits.push(hit);
    for (const { hit, regex } of regexes) if (regex.test(facets.value)) hits.push(hit);

    const best = new Map<number, Hit>();
    for (const hit of hits) {
      const info = infos[hit.list];
      if (info === undefined) continue;
      const viaUrlIp = info.type === "cidr" && facets.ipFromUrl;
      if (!viaUrlIp && !appliesTo(info, indicator.type)) continue;
      const current = best.get(hit.list);
      if (current === undefined || hit.specificity > current.specificity) best.set(hit.list, hit);
    }
    return [...best.values()]
      .sort((a, b) => a.list - b.list)
      .map((hit) => {
        const info = infos[hit.list] as ListInfo;
        return { list: info.name, type: info.type, entry: hit.entry };
      });
  }

  return { addList, addEntries, finish };
}
