import { registrableDomainOf } from "./domain";
import { normalizeIPv4, parseIpPort } from "./ip";
import type { Indicator } from "./types";
import { parseUrl } from "./url";

/**
 * The host an indicator points at: the domain itself, a URL's host (IPv6
 * without brackets), an e-mail address's domain, or the IP of an address or
 * ip:port. null for hashes and CIDR ranges.
 */
export function hostOf(indicator: Indicator): string | null {
  switch (indicator.type) {
    case "domain":
    case "ipv4":
    case "ipv6":
      return indicator.value;
    case "url":
      return parseUrl(indicator.value)?.host ?? null;
    case "email":
      return indicator.value.slice(indicator.value.lastIndexOf("@") + 1);
    case "ip:port":
      return parseIpPort(indicator.value)?.ip ?? null;
    default:
      return null;
  }
}

/** Registrable domain (public suffix + one label) of a domain, URL or e-mail address. */
export function registrableDomain(indicator: Indicator): string | null {
  if (indicator.type !== "domain" && indicator.type !== "url" && indicator.type !== "email") return null;
  const host = hostOf(indicator);
  return host === null ? null : registrableDomainOf(host);
}

/** "1.2.3.4" or "1.2.3.4:80" -> "1.2.3.0/24", for "same /24" relations; null otherwise. */
export function ipv4Slash24(value: string): string | null {
  const withPort = parseIpPort(value);
  const ip = normalizeIPv4(value) ?? (withPort?.version === 4 ? withPort.ip : null);
  if (ip === null) return null;
  return `${ip.slice(0, ip.lastIndexOf("."))}.0/24`;
}
