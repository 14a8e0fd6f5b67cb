import { normalizeIndicator } from "./detect";
import type { Indicator } from "./types";

/** Default cap on the number of distinct indicators returned by `extractIndicators`. */
export const DEFAULT_EXTRACT_LIMIT = 1000;

// Spaces around a bracketed marker belong to the defanging ("evil [.] com"),
// so they are closed up before the text is split into tokens.
const SPACED_MARKER = /\s*(\[\.\]|\(\.\)|\{\.\}|\[dot\]|\(dot\)|\{dot\}|\[@\]|\(@\)|\{@\}|\[at\]|\(at\)|\{at\})\s*/gi;
// Whitespace (JS \s covers NBSP and the Unicode spaces), zero-width space,
// control characters, quotes of every kind, angle brackets and backticks.
const TOKEN_SEPARATORS = /[\s\u200b\u0000-\u001f\u007f"'`<>\u2018\u2019\u201c\u201d]+/u;
const BRACKETED_IPV6 = /^\[[0-9a-fA-F:.]+\](?::\d+)?$/;
const SCHEME_PREFIX = /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\//;
const LIST_SEPARATORS = /[,;|=]+/;
// "md5:…", "mailto:…", "domain:…": a label before the value.
const LABELLED = /^[a-zA-Z][a-zA-Z0-9_-]*:(.+)$/;
const HOST_WITH_PORT = /^(.+):\d{1,5}$/;
const TRAILING_PUNCTUATION = new Set([".", ",", ";", ":", "!", "?"]);
const CLOSERS: Readonly<Record<string, string>> = { ")": "(", "]": "[", "}": "{" };

function count(text: string, char: string): number {
  let n = 0;
  for (const c of text) if (c === char) n += 1;
  return n;
}

/** Removes sentence punctuation and unbalanced brackets around a token. */
function stripPunctuation(token: string): string {
  let text = token;
  // No indicator starts with a bracket except a bracketed IPv6 address.
  if (!BRACKETED_IPV6.test(text)) {
    while (text.length > 0 && "([{".includes(text[0] ?? "")) text = text.slice(1);
  }
  for (;;) {
    const last = text.at(-1);
    if (last === undefined) break;
    const opener = CLOSERS[last];
    if (TRAILING_PUNCTUATION.has(last) || (opener !== undefined && count(text, opener) < count(text, last))) {
      text = text.slice(0, -1);
    } else {
      break;
    }
  }
  return text;
}

type Found = Indicator & { original: string };

/** Indicators in one whitespace-free token, trying looser readings only when stricter ones fail. */
function fromToken(token: string): Found[] {
  const direct = normalizeIndicator(token);
  if (direct !== null) return [{ ...direct, original: token }];
  const stripped = stripPunctuation(token);
  if (stripped === "") return [];
  if (stripped !== token) {
    const cleaned = normalizeIndicator(stripped);
    if (cleaned !== null) return [{ ...cleaned, original: stripped }];
  }
  // A URL that did not parse is not split further: its pieces are not
  // separate indicators.
  if (SCHEME_PREFIX.test(stripped)) return [];
  const found: Found[] = [];
  for (const piece of stripped.split(LIST_SEPARATORS)) {
    const part = stripPunctuation(piece);
    if (part === "") continue;
    const indicator = normalizeIndicator(part) ?? fallback(part);
    if (indicator !== null) found.push({ ...indicator, original: part });
  }
  return found;
}

function fallback(part: string): Indicator | null {
  const labelled = LABELLED.exec(part);
  if (labelled?.[1] !== undefined) {
    const value = normalizeIndicator(labelled[1]);
    if (value !== null) return value;
  }
  const hostWithPort = HOST_WITH_PORT.exec(part);
  if (hostWithPort?.[1] !== undefined) {
    const host = normalizeIndicator(hostWithPort[1]);
    if (host?.type === "domain") return host;
  }
  // Scheme-less "host/path" is not a URL, but its host is still worth reporting.
  const slash = part.indexOf("/");
  if (slash > 0) {
    const host = normalizeIndicator(part.slice(0, slash));
    if (host?.type === "domain" || host?.type === "ipv4") return host;
  }
  return null;
}

/**
 * Every indicator in free text (defanged or not), de-duplicated on the
 * canonical value, in order of first appearance, with the text as written.
 */
export function extractIndicators(
  text: string,
  limit: number = DEFAULT_EXTRACT_LIMIT,
): Found[] {
  const results: Found[] = [];
  if (typeof text !== "string" || limit <= 0) return results;
  const seen = new Set<string>();
  const tokens = text.replace(SPACED_MARKER, "$1").split(TOKEN_SEPARATORS);
  for (const token of tokens) {
    if (token === "") continue;
    for (const found of fromToken(token)) {
      const key = `${found.type} ${found.value}`;
      if (seen.has(key)) continue;
      seen.add(key);
      results.push(found);
      if (results.length >= limit) return results;
    }
  }
  return results;
}
