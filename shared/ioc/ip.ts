import ipaddr from "ipaddr.js";

// Plain dotted quad only. Leading zeros ("010.0.0.1") are rejected because
// inet_aton and browsers read them as octal, so the address is ambiguous;
// hex, octal and short forms ("0x7f.1", "127.1") are rejected for the same
// reason. This accepts what ipaddr.IPv4.isValidFourPartDecimal accepts, but
// without its exception-based failure path, which is slow for the many
// tokens (domains, hashes) that are tried as IPs first.
const DOTTED_QUAD = /^(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(?:\.(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;
const IPV6_CHARS = /^[0-9a-fA-F:.]+$/;
const DECIMAL = /^(?:0|[1-9]\d*)$/;
// "ffff:ffff:ffff:ffff:ffff:ffff:255.255.255.255": nothing longer is an IPv6
// address, so ipaddr.js (regex-based) never sees a long token.
const MAX_IPV6_LENGTH = 45;

export function normalizeIPv4(text: string): string | null {
  return DOTTED_QUAD.test(text) ? text : null;
}

/** RFC 5952 form (compressed, lower-case). Zone ids ("%eth0") are not indicators. */
export function normalizeIPv6(text: string): string | null {
  // Every IPv6 address has at least two colons. Checking that first keeps
  // "1.2.3.4:80" away from ipaddr.js, whose isValid is slow on a failure
  // (it throws and catches internally).
  if (text.length > MAX_IPV6_LENGTH || text.indexOf(":") === text.lastIndexOf(":") || !IPV6_CHARS.test(text)) return null;
  if (!ipaddr.IPv6.isValid(text)) return null;
  return ipaddr.IPv6.parse(text).toString();
}

export function parsePort(text: string): number | null {
  if (!DECIMAL.test(text) || text.length > 5) return null;
  const port = Number(text);
  return port >= 1 && port <= 65535 ? port : null;
}

/** "a.b.c.d/nn" or "v6/nn" -> network address + prefix, or null. */
export function normalizeCidr(text: string): string | null {
  const slash = text.indexOf("/");
  if (slash < 0) return null;
  const address = text.slice(0, slash);
  const prefixText = text.slice(slash + 1);
  if (!DECIMAL.test(prefixText)) return null;
  const prefix = Number(prefixText);
  const v4 = normalizeIPv4(address);
  if (v4 !== null) {
    if (prefix > 32) return null;
    return `${ipaddr.IPv4.networkAddressFromCIDR(`${v4}/${prefix}`).toString()}/${prefix}`;
  }
  const v6 = normalizeIPv6(address);
  if (v6 !== null) {
    if (prefix > 128) return null;
    return `${ipaddr.IPv6.networkAddressFromCIDR(`${v6}/${prefix}`).toString()}/${prefix}`;
  }
  return null;
}

export interface IpWithPort {
  ip: string;
  version: 4 | 6;
  port: number;
}

/** "1.2.3.4:8080" or "[2001:db8::1]:443". A bare IPv6 address never has a port. */
export function parseIpPort(text: string): IpWithPort | null {
  if (text.startsWith("[")) {
    const close = text.indexOf("]");
    if (close < 0 || text[close + 1] !== ":") return null;
    const ip = normalizeIPv6(text.slice(1, close));
    const port = parsePort(text.slice(close + 2));
    return ip !== null && port !== null ? { ip, version: 6, port } : null;
  }
  const colon = text.lastIndexOf(":");
  if (colon < 0) return null;
  const ip = normalizeIPv4(text.slice(0, colon));
  const port = parsePort(text.slice(colon + 1));
  return ip !== null && port !== null ? { ip, version: 4, port } : null;
}

export function formatIpPort(ip: string, version: 4 | 6, port: number): string {
  return version === 6 ? `[${ip}]:${port}` : `${ip}:${port}`;
}
