import { hostnameToAscii } from "./domain";
import { normalizeIPv4, normalizeIPv6, parsePort } from "./ip";
import type { Indicator } from "./types";

// RFC 3986 scheme syntax, at least two characters: "c://x" is a Windows path
// written with slashes, not a URL. Bounded so an anchored match is short.
const SCHEME = /^([a-zA-Z][a-zA-Z0-9+.-]{1,31}):\/\//;
/**
 * Default ports, which the canonical form drops. Other schemes the
 * analysts paste (tcp://, udp://, socks5://, a malware's own) are URLs too,
 * with their port kept as written.
 */
const DEFAULT_PORTS: Readonly<Record<string, number>> = {
  http: 80,
  https: 443,
  ftp: 21,
  ftps: 990,
  sftp: 22,
  ssh: 22,
  telnet: 23,
  ws: 80,
  wss: 443,
  smb: 445,
  ldap: 389,
  ldaps: 636,
  rdp: 3389,
};
/** The schemes whose default port the canonical form drops. */
export const KNOWN_SCHEMES: readonly string[] = Object.keys(DEFAULT_PORTS);
// Schemes that name no network resource, whatever follows the "//".
const NOT_NETWORK = new Set(["file", "javascript", "data", "about", "blob", "mailto", "vbscript"]);
// Where the authority ends. A backslash counts because browsers treat it as "/"
// in http(s) URLs ("http://evil.com\@good.com" goes to evil.com).
const AUTHORITY_END = /[/?#\\]/;
// A URL with raw whitespace or control characters is not one URL but a broken
// token; refusing it beats guessing where it ends.
const FORBIDDEN = /[\s\u0000-\u001f\u007f]/;
// Hosts like "127.1", "2130706433" or "0x7f.0.0.1" are IPv4 numbers in other
// spellings; browsers and inet_aton disagree on them, so they are refused.
const NUMERIC_LAST_LABEL = /(?:^|\.)(?:\d+|0x[0-9a-f]*)$/i;

export interface UrlParts {
  scheme: string;
  /** Lower-case host name, dotted IPv4, or IPv6 without brackets. */
  host: string;
  hostKind: "name" | "ipv4" | "ipv6";
  /** null when absent or the scheme's default. */
  port: number | null;
  /** Path and query exactly as given ("/" when empty); no fragment. */
  rest: string;
}

/** Splits and canonicalises an absolute URL with a network host; null when it is not one. */
export function parseUrl(text: string): UrlParts | null {
  if (FORBIDDEN.test(text)) return null;
  const schemeMatch = SCHEME.exec(text);
  if (schemeMatch === null) return null;
  const scheme = (schemeMatch[1] ?? "").toLowerCase();
  if (NOT_NETWORK.has(scheme)) return null;
  const defaultPort = DEFAULT_PORTS[scheme] ?? null;

  const afterScheme = text.slice(schemeMatch[0].length);
  const authorityEnd = afterScheme.search(AUTHORITY_END);
  const authority = authorityEnd < 0 ? afterScheme : afterScheme.slice(0, authorityEnd);
  let rest = authorityEnd < 0 ? "" : afterScheme.slice(authorityEnd);
  const hash = rest.indexOf("#");
  if (hash >= 0) rest = rest.slice(0, hash);
  if (rest === "" || rest.startsWith("?")) rest = `/${rest}`;

  // Credentials are dropped: they identify the victim, not the resource.
  const hostPort = authority.slice(authority.lastIndexOf("@") + 1);
  let hostText: string;
  let portText: string;
  if (hostPort.startsWith("[")) {
    const close = hostPort.indexOf("]");
    if (close < 0) return null;
    hostText = hostPort.slice(1, close);
    const after = hostPort.slice(close + 1);
    if (after !== "" && !after.startsWith(":")) return null;
    portText = after.slice(1);
    const v6 = normalizeIPv6(hostText);
    if (v6 === null) return null;
    return finish(scheme, v6, "ipv6", portText, defaultPort, rest);
  }
  const colon = hostPort.lastIndexOf(":");
  hostText = colon < 0 ? hostPort : hostPort.slice(0, colon);
  portText = colon < 0 ? "" : hostPort.slice(colon + 1);
  const v4 = normalizeIPv4(hostText);
  if (v4 !== null) return finish(scheme, v4, "ipv4", portText, defaultPort, rest);
  if (NUMERIC_LAST_LABEL.test(hostText.endsWith(".") ? hostText.slice(0, -1) : hostText)) return null;
  const name = hostnameToAscii(hostText);
  if (name === null || !name.includes(".")) return null;
  return finish(scheme, name, "name", portText, defaultPort, rest);
}

function finish(scheme: string, host: string, hostKind: UrlParts["hostKind"], portText: string, defaultPort: number | null, rest: string): UrlParts | null {
  let port: number | null = null;
  if (portText !== "") {
    port = parsePort(portText);
    if (port === null) return null;
    if (port === defaultPort) port = null;
  }
  return { scheme, host, hostKind, port, rest };
}

export function formatUrl(parts: UrlParts): string {
  const host = parts.hostKind === "ipv6" ? `[${parts.host}]` : parts.host;
  const port = parts.port === null ? "" : `:${parts.port}`;
  return `${parts.scheme}://${host}${port}${parts.rest}`;
}

export function normalizeUrl(text: string): string | null {
  const parts = parseUrl(text);
  return parts === null ? null : formatUrl(parts);
}

/**
 * A URL indicator with its path's trailing slash toggled, when it has a path
 * beyond "/" and no query (null for any other indicator): feeds and analysts
 * write "…/gate/" and "…/gate" for one resource, so a lookup of either finds
 * what a feed stored.
 */
export function slashTwin(indicator: Indicator): Indicator | null {
  if (indicator.type !== "url") return null;
  const parts = parseUrl(indicator.value);
  if (parts === null || parts.rest === "/" || parts.rest.includes("?")) return null;
  const rest = parts.rest.endsWith("/") ? parts.rest.slice(0, -1) : `${parts.rest}/`;
  return { type: "url", value: formatUrl({ ...parts, rest }) };
}
