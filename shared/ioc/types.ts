export type IndicatorType = "ipv4" | "ipv6" | "cidr" | "domain" | "url" | "email" | "md5" | "sha1" | "sha256" | "sha512" | "ip:port";

export interface Indicator {
  type: IndicatorType;
  /** Canonical form: the same indicator always has the same value. */
  value: string;
}

export const INDICATOR_TYPES: readonly IndicatorType[] = Object.freeze([
  "ipv4",
  "ipv6",
  "cidr",
  "domain",
  "url",
  "email",
  "md5",
  "sha1",
  "sha256",
  "sha512",
  "ip:port",
]);

/** MISP warninglist types: how a list's entries match (server/ioc/warninglist-match.ts). */
export type WarninglistType = "cidr" | "string" | "hostname" | "substring" | "regex";
