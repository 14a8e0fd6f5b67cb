import { normalizeDomain } from "./domain";
import { formatIpPort, normalizeCidr, normalizeIPv4, normalizeIPv6, parseIpPort, parsePort } from "./ip";
import { refang } from "./refang";
import type { Indicator, IndicatorType } from "./types";
import { formatUrl, normalizeUrl, parseUrl } from "./url";

/** Longer tokens are refused outright; no real indicator comes near this. */
export const MAX_INDICATOR_LENGTH = 8192;

const HEX = /^[0-9a-fA-F]+$/;
const HASH_TYPES: Readonly<Record<number, IndicatorType>> = { 32: "md5", 40: "sha1", 64: "sha256", 128: "sha512" };
const SCHEME_PREFIX = /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\//;
// RFC 5322 atext plus dots, and any letter or digit for internationalised
// local parts; quoted local parts do not occur in indicator feeds.
const EMAIL_LOCAL = /^[\p{L}\p{N}!#$%&'*+/=?^_`{|}~-]+(?:\.[\p{L}\p{N}!#$%&'*+/=?^_`{|}~-]+)*$/u;
const MAX_EMAIL_LOCAL_LENGTH = 64;

function hashIndicator(token: string): Indicator | null {
  if (!HEX.test(token)) return null;
  const type = HASH_TYPES[token.length];
  return type === undefined ? null : { type, value: token.toLowerCase() };
}

function emailIndicator(token: string): Indicator | null {
  const at = token.lastIndexOf("@");
  if (at <= 0) return null;
  const local = token.slice(0, at);
  if (local.length > MAX_EMAIL_LOCAL_LENGTH || !EMAIL_LOCAL.test(local)) return null;
  const domain = normalizeDomain(token.slice(at + 1));
  return domain === null ? null : { type: "email", value: `${local}@${domain}` };
}

function ipIndicator(token: string): Indicator | null {
  const v4 = normalizeIPv4(token);
  if (v4 !== null) return { type: "ipv4", value: v4 };
  if (token.startsWith("[") && token.endsWith("]")) {
    const bracketed = normalizeIPv6(token.slice(1, -1));
    return bracketed === null ? null : { type: "ipv6", value: bracketed };
  }
  const v6 = normalizeIPv6(token);
  if (v6 !== null) return { type: "ipv6", value: v6 };
  const withPort = parseIpPort(token);
  if (withPort !== null) {
    return { type: "ip:port", value: formatIpPort(withPort.ip, withPort.version, withPort.port) };
  }
  const cidr = normalizeCidr(token);
  return cidr === null ? null : { type: "cidr", value: cidr };
}

/**
 * One token (possibly defanged) to its canonical indicator, or null when it
 * is not one. Never throws.
 */
export function normalizeIndicator(raw: string): Indicator | null {
  if (typeof raw !== "string" || raw.length > MAX_INDICATOR_LENGTH) return null;
  const trimmed = raw.trim();
  if (trimmed === "") return null;
  // Hashes first: a hex string can never be anything else, and refanging
  // must not get a chance to touch it.
  return hashIndicator(trimmed) ?? fromRefanged(refang(trimmed));
}

/** normalizeIndicator after the hash check and refanging. */
function fromRefanged(token: string): Indicator | null {
  if (SCHEME_PREFIX.test(token)) {
    const url = normalizeUrl(token);
    return url === null ? null : { type: "url", value: url };
  }
  if (token.includes("@")) return emailIndicator(token);
  const ip = ipIndicator(token);
  if (ip !== null) return ip;
  const domain = normalizeDomain(token);
  return domain === null ? null : { type: "domain", value: domain };
}

export interface IndicatorWithPort {
  /** The canonical indicator: the ip:port for "1.2.3.4:443", the http:// URL for a scheme-less "host/path". */
  indicator: Indicator;
  /** The port named beside a host ("1.2.3.4:443", "evil.com:8080"); null when none is named. */
  port: number | null;
  /**
   * The bare host of a value some feeds file under its host: the address of
   * an ip:port, the host of a scheme-less "host/path". Lookups fall back to
   * it when the value itself is not stored.
   */
  address: Indicator | null;
}

// "evil.com:8080": a domain with a port beside it, as maltrail and ThreatFox write it.
const DOMAIN_PORT = /^([^:/[\]@]+):(\d{1,5})$/;
const LIST_CHARS = /[,;|]/;
// "10.0.0.1/33" is a broken CIDR, not an address with a path.
const CIDR_LIKE = /^[\d.]+\/\d{1,3}$/;

function withAddress(indicator: Indicator): IndicatorWithPort {
  const split = indicator.type === "ip:port" ? parseIpPort(indicator.value) : null;
  if (split === null) return { indicator, port: null, address: null };
  return { indicator, port: split.port, address: { type: split.version === 4 ? "ipv4" : "ipv6", value: split.ip } };
}

function domainWithPort(token: string): IndicatorWithPort | null {
  const match = DOMAIN_PORT.exec(token);
  if (match?.[1] === undefined || match[2] === undefined) return null;
  const domain = normalizeDomain(match[1]);
  const port = parsePort(match[2]);
  return domain === null || port === null ? null : { indicator: { type: "domain", value: domain }, port, address: null };
}

/**
 * "host/path", "host:port/path": maltrail's URL trails and the usual way C2
 * addresses are pasted. maltrail stores them as http:// URLs (see
 * server/feeds/ioc/maltrail.ts), so this reads them the same way. With
 * `publicSuffix`, a host name must end in a public suffix, so that
 * "readme.txt/x" in free text is not taken for a URL.
 */
function schemelessUrl(token: string, publicSuffix: boolean): IndicatorWithPort | null {
  const slash = token.indexOf("/");
  // Credentials before the host ("user@host/x") are not how a host is written; an "@" in the path is fine.
  if (slash <= 0 || token.lastIndexOf("@", slash) >= 0 || CIDR_LIKE.test(token)) return null;
  const parts = parseUrl(`http://${token}`);
  if (parts === null) return null;
  const host: Indicator | null =
    parts.hostKind === "ipv4"
      ? { type: "ipv4", value: parts.host }
      : parts.hostKind === "ipv6"
        ? { type: "ipv6", value: parts.host }
        : domainOrNull(parts.host, publicSuffix);
  if (host === null) return null;
  // The port is part of the URL, as the importer stores it, not a port beside it.
  return { indicator: { type: "url", value: formatUrl(parts) }, port: null, address: host };
}

function domainOrNull(host: string, publicSuffix: boolean): Indicator | null {
  if (!publicSuffix) return { type: "domain", value: host };
  const domain = normalizeDomain(host);
  return domain === null ? null : { type: "domain", value: domain };
}

/**
 * Any value as a feed or an analyst writes it: what normalizeIndicator
 * reads, plus a port beside a domain and scheme-less URLs.
 */
function readIndicator(raw: string, publicSuffix: boolean, loose = true): IndicatorWithPort | null {
  if (typeof raw !== "string" || raw.length > MAX_INDICATOR_LENGTH) return null;
  const trimmed = raw.trim();
  if (trimmed === "") return null;
  const hash = hashIndicator(trimmed);
  if (hash !== null) return withAddress(hash);
  const token = refang(trimmed);
  const indicator = fromRefanged(token);
  if (indicator !== null) return withAddress(indicator);
  if (!loose || SCHEME_PREFIX.test(token)) return null;
  // In free text "10.0.0.0/8,192.168.0.0/16" is a list, not one URL: the
  // extractor splits it and reads each piece.
  if (publicSuffix && LIST_CHARS.test(token)) return null;
  return domainWithPort(token) ?? schemelessUrl(token, publicSuffix);
}

/**
 * One value (possibly defanged) to the key it is stored under, with the port
 * named beside a host and the bare host to fall back to. Accepts the forms
 * the feeds write: "1.2.3.4:443", "evil.com:8080", scheme-less "host/path/".
 */
export function parseIndicator(raw: string): IndicatorWithPort | null {
  return readIndicator(raw, false);
}

/**
 * parseIndicator for a token of free text, where a host name without a
 * public suffix is more likely a file name than a host. With `loose` false,
 * only what normalizeIndicator reads (with the address of an ip:port).
 */
export function parseIndicatorInText(raw: string, loose = true): IndicatorWithPort | null {
  return readIndicator(raw, true, loose);
}
