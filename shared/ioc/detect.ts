import { normalizeDomain } from "./domain";
import { formatIpPort, normalizeCidr, normalizeIPv4, normalizeIPv6, parseIpPort } from "./ip";
import { refang } from "./refang";
import type { Indicator, IndicatorType } from "./types";
import { normalizeUrl } from "./url";

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
  const hash = hashIndicator(trimmed);
  if (hash !== null) return hash;

  const token = refang(trimmed);
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
  /** The canonical indicator: the ip:port for "1.2.3.4:443". */
  indicator: Indicator;
  /** The port named beside a host; null when none is named. */
  port: number | null;
  /** For an ip:port, the bare address: feeds that keep ports aside file the sighting under it. */
  address: Indicator | null;
}

/** One value (possibly defanged) to its canonical indicator, with the port named beside an address. */
export function parseIndicator(raw: string): IndicatorWithPort | null {
  const indicator = normalizeIndicator(raw);
  if (indicator === null) return null;
  const split = indicator.type === "ip:port" ? parseIpPort(indicator.value) : null;
  if (split === null) return { indicator, port: null, address: null };
  return { indicator, port: split.port, address: { type: split.version === 4 ? "ipv4" : "ipv6", value: split.ip } };
}
