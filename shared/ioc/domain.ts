import { parse as parseHostname } from "tldts";
import { toASCII } from "tr46";

// Labels of 1-63 letters, digits, "-" or "_", not starting or ending with
// "-"; the last label (the TLD) without "_".
const ASCII_HOSTNAME = /^(?:(?!-)[a-z0-9_-]{1,63}(?<!-)\.)*(?!-)[a-z0-9-]{1,63}(?<!-)$/;
const NON_ASCII = /[^\u0000-\u007f]/;
const MAX_HOSTNAME_LENGTH = 253;

function isValidAsciiHostname(hostname: string): boolean {
  return hostname.length <= MAX_HOSTNAME_LENGTH && ASCII_HOSTNAME.test(hostname);
}

/**
 * Host name to its ASCII (A-label) form per UTS #46, lower-cased, without a
 * trailing dot; null when it is not a valid DNS host name. No public-suffix
 * check: use `normalizeDomain` for that.
 *
 * checkHyphens is off (as in the WHATWG URL standard) because real host names
 * such as "r3---sn-abc.googlevideo.com" have "--" in the third and fourth
 * positions; a leading or trailing hyphen is still rejected.
 *
 * "_" is accepted in ASCII labels other than the TLD although STD3 host name
 * rules forbid it: DNS allows it (RFC 2181 §11) and phishing hosts such as
 * "secure-ad_jp.example.shop" use it, so refusing it would drop real
 * indicators. Non-ASCII names go through UTS #46 with STD3 rules unchanged.
 */
export function hostnameToAscii(host: string): string | null {
  const trimmed = host.endsWith(".") ? host.slice(0, -1) : host;
  const lower = trimmed.toLowerCase();
  // Fast path: for ASCII input without A-labels UTS #46 only lower-cases,
  // and STD3 rules refuse every other character, so a regex gives the same
  // answer as tr46, which costs ~30 µs a call (feeds carry millions of names).
  if (!NON_ASCII.test(lower) && !lower.includes("xn--")) {
    return isValidAsciiHostname(lower) ? lower : null;
  }
  const ascii = toASCII(trimmed, {
    checkHyphens: false,
    checkBidi: true,
    checkJoiners: true,
    useSTD3ASCIIRules: true,
    verifyDNSLength: true,
    transitionalProcessing: false,
  });
  if (ascii === null || ascii.endsWith(".")) return null;
  return isValidAsciiHostname(ascii) ? ascii : null;
}

/**
 * A registrable-or-deeper domain name under an ICANN public suffix, so file
 * names such as "readme.txt" or "setup.exe" are not mistaken for domains.
 * A bare public suffix ("co.uk") is not a domain indicator either.
 */
export function normalizeDomain(host: string): string | null {
  const ascii = hostnameToAscii(host);
  if (ascii === null || !ascii.includes(".")) return null;
  const parsed = parseHostname(ascii);
  if (parsed.isIcann !== true || parsed.domain === null || parsed.isIp === true) return null;
  return ascii;
}

/** Registrable domain ("www.example.co.uk" -> "example.co.uk") under an ICANN suffix. */
export function registrableDomainOf(hostname: string): string | null {
  const parsed = parseHostname(hostname);
  return parsed.isIcann === true && parsed.isIp !== true ? parsed.domain : null;
}
