import { MAX_INDICATOR_LENGTH, parseIndicatorInText } from "./detect";
import { closeSpacedMarkers, refang } from "./refang";
import type { Indicator } from "./types";

/** Default cap on the number of distinct indicators returned by `extractIndicators`. */
export const DEFAULT_EXTRACT_LIMIT = 1000;

/*
 * Extraction runs on pasted text of up to a megabyte, so every step is one
 * pass: the text is cut into lines, each line into tokens, each token into
 * list pieces, and each piece of at most MAX_INDICATOR_LENGTH characters is
 * read a fixed number of times by patterns without nested or overlapping
 * quantifiers. Nothing ever looks across a line break.
 */
const LINE_BREAK = /\r\n|[\n\r\v\f\u0085\u2028\u2029]/;
// Whitespace (JS \s covers NBSP and the Unicode spaces), zero-width space,
// control characters, quotes of every kind, angle brackets and backticks.
const TOKEN_SEPARATORS = /[\s\u200b\u0000-\u001f\u007f"'`<>\u2018\u2019\u201c\u201d]+/u;
// "[2001:db8::1]", "[2001:db8::1]:443", "[2001:db8::1]:443/x".
const BRACKETED_IPV6 = /^\[[0-9a-fA-F:.]+\](?::\d{1,5})?(?:\/|$)/;
const SCHEME_PREFIX = /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\//;
const LIST_SEPARATORS = /[,;|=]+/;
// "md5:…", "mailto:…", "domain:…": a label before the value.
const LABELLED = /^[a-zA-Z][a-zA-Z0-9_-]*:(.+)$/;
// Every indicator has a letter or a digit; a token of punctuation is skipped unread.
const ALPHANUMERIC = /[\p{L}\p{N}]/u;
const OPENERS = new Set(["(", "[", "{"]);
const TRAILING_PUNCTUATION = new Set([".", ",", ";", ":", "!", "?"]);
const CLOSERS: Readonly<Record<string, string>> = { ")": "(", "]": "[", "}": "{" };

/** Removes sentence punctuation and unbalanced brackets around a token, in one pass each way. */
function stripPunctuation(token: string): string {
  let start = 0;
  let end = token.length;
  // No indicator starts with a bracket except a bracketed IPv6 address.
  if (!BRACKETED_IPV6.test(token)) {
    while (start < end && OPENERS.has(token[start] ?? "")) start += 1;
  }
  // Brackets are counted once the markers are gone: the "(" of "evil(.]com" balances nothing.
  const brackets: Record<string, number> = { "(": 0, ")": 0, "[": 0, "]": 0, "{": 0, "}": 0 };
  for (const char of refang(token.slice(start, end))) {
    if (char in brackets) brackets[char] = (brackets[char] ?? 0) + 1;
  }
  while (end > start) {
    const last = token[end - 1] ?? "";
    const opener = CLOSERS[last];
    if (TRAILING_PUNCTUATION.has(last)) {
      end -= 1;
    } else if (opener !== undefined && (brackets[opener] ?? 0) < (brackets[last] ?? 0)) {
      brackets[last] = (brackets[last] ?? 0) - 1;
      end -= 1;
    } else {
      break;
    }
  }
  return token.slice(start, end);
}

export type Found = Indicator & {
  /** The text as written (spaces around markers closed up). */
  original: string;
  /** The bare host or address a lookup may fall back to: see IndicatorWithPort.address. */
  address: Indicator | null;
};

/** Characters handed to the readers: a measure of the work done, linear in the text by construction. */
interface Work {
  chars: number;
}

/** One reading of a piece of text; `loose` adds the analysts' forms ("evil.com/x", "evil.com:8080"). */
function read(text: string, work: Work, loose = true): Found | null {
  if (text.length > MAX_INDICATOR_LENGTH) return null;
  work.chars += text.length;
  const parsed = parseIndicatorInText(text, loose);
  return parsed === null ? null : { ...parsed.indicator, original: text, address: parsed.address };
}

/** A value behind a label ("sha1:…", "ip:1.2.3.4"). */
function labelled(part: string, work: Work): Found | null {
  if (part.length > MAX_INDICATOR_LENGTH) return null;
  work.chars += part.length;
  const value = LABELLED.exec(part)?.[1];
  const found = value === undefined ? null : read(value, work);
  return found === null ? null : { ...found, original: part };
}

/**
 * Sentence punctuation and closing brackets off the end, balanced or not: a
 * defang marker's bracket ("evil(.]com)") can make the closing one look
 * balanced.
 */
function stripTrailing(text: string): string {
  let end = text.length;
  while (end > 0 && (TRAILING_PUNCTUATION.has(text[end - 1] ?? "") || (text[end - 1] ?? "") in CLOSERS)) end -= 1;
  return text.slice(0, end);
}

/**
 * Indicators in one whitespace-free token, trying looser readings only when
 * stricter ones fail: the token without sentence punctuation, then without
 * any closing bracket, then as written; then the pieces of a list. At most a
 * fixed number of readings, each linear.
 */
function fromToken(token: string, work: Work, piecesRead: Set<string>): Found[] {
  work.chars += token.length;
  const stripped = stripPunctuation(token);
  if (stripped === "") return [];
  const bare = stripTrailing(stripped);
  // Loose readings only once sentence punctuation is off: "10.1.2.3/8." is a
  // CIDR range at the end of a sentence, not the URL http://10.1.2.3/8. The
  // token as written is the last resort ("http://x.com/a." is tried without
  // its dot first).
  const readings: Array<[string, boolean]> = [[stripped, true]];
  if (bare !== stripped && bare !== "") readings.push([bare, true]);
  if (token !== stripped && token !== bare) readings.push([token, false]);
  for (const [text, loose] of readings) {
    const found = read(text, work, loose);
    if (found !== null) return [found];
  }
  // A URL that did not parse is not split further: its pieces are not
  // separate indicators.
  if (SCHEME_PREFIX.test(stripped)) return [];
  const found: Found[] = [];
  for (const piece of stripped.split(LIST_SEPARATORS)) {
    if (piecesRead.has(piece)) continue;
    piecesRead.add(piece);
    // The whole token was read above: only a label may still be in front of it.
    if (piece === stripped) {
      const found = labelled(piece, work);
      return found === null ? [] : [found];
    }
    work.chars += piece.length;
    const part = stripPunctuation(piece);
    if (part === "") continue;
    const indicator = read(part, work) ?? labelled(part, work);
    if (indicator !== null) found.push(indicator);
  }
  return found;
}

/**
 * extractIndicators, with the work it did: the characters handed to the
 * readers. Tests check that it stays within a small multiple of the text.
 */
export function extractIndicatorsWithWork(text: string, limit: number = DEFAULT_EXTRACT_LIMIT): { indicators: Found[]; work: number } {
  const indicators: Found[] = [];
  const work: Work = { chars: 0 };
  if (typeof text !== "string" || limit <= 0) return { indicators, work: 0 };
  const seen = new Set<string>();
  // A token or list piece read once has given all it has: pasted logs repeat the same few.
  const tokensRead = new Set<string>();
  const piecesRead = new Set<string>();
  for (const line of text.split(LINE_BREAK)) {
    if (line === "") continue;
    work.chars += line.length;
    // Spaces around a bracketed marker belong to the defanging ("evil [.] com").
    for (const token of closeSpacedMarkers(line).split(TOKEN_SEPARATORS)) {
      if (token === "" || tokensRead.has(token) || !ALPHANUMERIC.test(token)) continue;
      tokensRead.add(token);
      for (const found of fromToken(token, work, piecesRead)) {
        const key = `${found.type} ${found.value}`;
        if (seen.has(key)) continue;
        seen.add(key);
        indicators.push(found);
        if (indicators.length >= limit) return { indicators, work: work.chars };
      }
    }
  }
  return { indicators, work: work.chars };
}

/**
 * Every indicator in free text (defanged or not), de-duplicated on the
 * canonical value, in order of first appearance, with the text as written.
 * Analysts' forms count: "1.2.3.4:443/gate.php" and "evil.com/x" are http://
 * URLs, "evil.com:8080" is the domain.
 */
export function extractIndicators(text: string, limit: number = DEFAULT_EXTRACT_LIMIT): Found[] {
  return extractIndicatorsWithWork(text, limit).indicators;
}
