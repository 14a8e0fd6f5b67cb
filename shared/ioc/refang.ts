/**
 * Undo the common ways analysts "defang" indicators so they cannot be clicked.
 * Only bracketed markers and scheme spellings that never occur in a real
 * indicator are rewritten, so refanging plain text or an already clean value
 * is a no-op.
 */

// Bracketed dot markers, optionally padded with spaces ("evil [.] com").
const DOT_MARKERS = /\s*(?:\[\.\]|\(\.\)|\{\.\}|\[dot\]|\(dot\)|\{dot\})\s*/gi;
const AT_MARKERS = /\s*(?:\[@\]|\(@\)|\{@\}|\[at\]|\(at\)|\{at\})\s*/gi;
// `[://]` must be replaced before `[:]` and `[/]` would split it up.
const SCHEME_SEPARATOR = /\[:\/\/\]/g;
const COLON_MARKER = /\[:\]/g;
const SLASH_MARKER = /\[\/\]/g;
const ESCAPED_DOT = /\\\./g;
// hxxp, hXXp, h**p, hxtp, htxp, meow (+s) used as a URL scheme; the lookahead
// keeps words like "meow" in prose untouched.
const SCHEME_WORDS = /\b(?:hxxp|hxtp|htxp|h\*\*p|meow)(s?)(?=:\/\/)/gi;
const FXP_SCHEME = /\bfxp(s?)(?=:\/\/)/gi;

// Every marker above contains one of these; most input contains none, and
// this one test is much cheaper than running eight replacements.
const ANY_MARKER = /[[({\\]|h(?:xx|xt|tx|\*\*)p|meow|fxp/i;

export function refang(text: string): string {
  if (!ANY_MARKER.test(text)) return text;
  return text
    .replace(SCHEME_SEPARATOR, "://")
    .replace(COLON_MARKER, ":")
    .replace(SLASH_MARKER, "/")
    .replace(DOT_MARKERS, ".")
    .replace(AT_MARKERS, "@")
    .replace(ESCAPED_DOT, ".")
    .replace(SCHEME_WORDS, (_m, s: string) => `http${s.toLowerCase()}`)
    .replace(FXP_SCHEME, (_m, s: string) => `ftp${s.toLowerCase()}`);
}
