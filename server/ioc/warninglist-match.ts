import ipaddr from "ipaddr.js";
import { parseIpPort } from "../../shared/ioc/ip";
import type { Indicator, IndicatorType, WarninglistType } from "../../shared/ioc/types";
import type { WarninglistInput } from "../feeds/warninglists/parse";
import { parseUrl } from "../../shared/ioc/url";
import { IntervalIndex, KeyTable, type IntervalIndexState, type KeyedEntry, type KeyTableState, type RangeEntry } from "./warninglist-index";

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
  const builder = createWarninglistMatcherBuilder();
  for (const list of lists) builder.addEntries(builder.addList(list), list.entries);
  return warninglistMatcherFromState(builder.pack());
}

/** The packed matcher as plain data: what an import stores and a web process loads (server/ioc/warninglist-snapshot.ts). */
export interface WarninglistMatcherState {
  lists: Array<{ name: string; type: WarninglistType; applies: IndicatorType[] | null }>;
  v4: IntervalIndexState<number>;
  v6: IntervalIndexState<bigint>;
  strings: KeyTableState;
  hostnames: KeyTableState;
  substrings: Hit[];
  /** Patterns that compiled when packed; a RegExp is not data, so each is compiled again on load. */
  regexes: Hit[];
  skipped: SkippedEntry[];
}

export interface WarninglistMatcherBuilder {
  /** Declares a list (its entries may follow in several calls); returns its index. */
  addList(list: Omit<WarninglistInput, "entries">): number;
  addEntries(list: number, entries: readonly string[]): void;
  /** Packs what was added; the builder is spent. */
  pack(): WarninglistMatcherState;
}

/** A matcher fed a chunk at a time, so that a caller can read the lists in pages (server/ioc/warninglists.ts). */
export function createWarninglistMatcherBuilder(): WarninglistMatcherBuilder {
  const lists: WarninglistMatcherState["lists"] = [];
  const skipped: SkippedEntry[] = [];
  // Gathered while the lists are read, then packed once by pack().
  const v4Ranges: Array<RangeEntry<number>> = [];
  const v6Ranges: Array<RangeEntry<bigint>> = [];
  const stringEntries: KeyedEntry[] = [];
  const hostnameEntries: KeyedEntry[] = [];
  const substrings: Hit[] = [];
  const regexes: Hit[] = [];

  const addList = (list: Omit<WarninglistInput, "entries">): number => {
    const attributes = list.matchingAttributes ?? [];
    const applies =
      attributes.length === 0
        ? null
        : (Object.keys(MISP_TYPES) as IndicatorType[]).filter((type) => MISP_TYPES[type].some((mispType) => attributes.includes(mispType)));
    lists.push({ name: list.name, type: list.type, applies });
    return lists.length - 1;
  };

  const addEntries = (index: number, entries: readonly string[]): void => {
    const list = lists[index] as WarninglistMatcherState["lists"][number];
    for (const entry of entries) {
      if (entry.trim() === "") continue;
      switch (list.type) {
        case "cidr": {
          const range = parseRange(entry);
          if (range === null) {
            skipped.push({ list: list.name, entry, reason: "not an IP address or CIDR" });
          } else if (range.version === 4) {
            v4Ranges.push({ start: range.start, end: range.end, list: index, entry, specificity: range.prefix });
          } else {
            v6Ranges.push({ start: range.start, end: range.end, list: index, entry, specificity: range.prefix });
          }
          break;
        }
        case "string":
          stringEntries.push({ key: entry.trim().toLowerCase(), list: index, entry });
          break;
        case "hostname":
          hostnameEntries.push({ key: normalizeHostEntry(entry), list: index, entry });
          break;
        case "substring":
          substrings.push({ list: index, entry, specificity: entry.length });
          break;
        case "regex": {
          const regex = compileRegex(entry);
          if (typeof regex === "string") skipped.push({ list: list.name, entry, reason: regex });
          else regexes.push({ list: index, entry, specificity: 0 });
          break;
        }
      }
    }
  };

  const pack = (): WarninglistMatcherState => ({
    lists,
    v4: IntervalIndex.build(v4Ranges.splice(0), (values) => Uint32Array.from(values)).state,
    v6: IntervalIndex.build(v6Ranges.splice(0), (values) => values).state,
    strings: KeyTable.build(stringEntries.splice(0)).state,
    hostnames: KeyTable.build(hostnameEntries.splice(0)).state,
    substrings,
    regexes,
    skipped,
  });

  return { addList, addEntries, pack };
}

/** The matcher over packed lists: wraps the state's arrays as they are, so loading a stored one costs next to nothing. */
export function warninglistMatcherFromState(state: WarninglistMatcherState): WarninglistMatcher {
  const infos: ListInfo[] = state.lists.map((list) => ({ ...list, applies: list.applies === null ? null : new Set(list.applies) }));
  const v4 = IntervalIndex.fromState(state.v4);
  const v6 = IntervalIndex.fromState(state.v6);
  const strings = KeyTable.fromState(state.strings);
  const hostnames = KeyTable.fromState(state.hostnames);
  const skipped = [...state.skipped];
  const regexes: Array<{ hit: Hit; regex: RegExp }> = [];
  for (const hit of state.regexes) {
    const regex = compileRegex(hit.entry);
    if (typeof regex === "string") skipped.push({ list: infos[hit.list]?.name ?? "", entry: hit.entry, reason: regex });
    else regexes.push({ hit, regex });
  }
  const substrings = state.substrings;
  const appliesTo = (info: ListInfo, type: IndicatorType): boolean => info.applies === null || info.applies.has(type);

  function match(indicator: Indicator): WarninglistMatch[] {
    const facets = facetsOf(indicator);
    const hits: Hit[] = [];
    const collect = (list: number, entry: string, specificity: number): void => {
      hits.push({ list, entry, specificity });
    };
    if (facets.ip !== null) {
      if (facets.ip.version === 4) v4.containing(facets.ip.value, facets.ip.value, collect);
      else v6.containing(facets.ip.value, facets.ip.value, collect);
    } else if (facets.range !== null) {
      if (facets.range.version === 4) v4.containing(facets.range.start, facets.range.end, collect);
      else v6.containing(facets.range.start, facets.range.end, collect);
    }
    const lower = facets.value.toLowerCase();
    for (const key of facets.host === null || facets.host === lower ? [lower] : [lower, facets.host]) strings.find(key, 0, collect);
    if (facets.host !== null) {
      const labels = facets.host.split(".");
      for (let i = 0; i < labels.length; i += 1) hostnames.find(labels.slice(i).join("."), labels.length - i, collect);
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

  return { match, skipped };
}
