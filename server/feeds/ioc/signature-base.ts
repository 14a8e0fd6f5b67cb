import type { IndicatorType } from "../../../shared/ioc/types";
import { readLines } from "../toolkit/lines";
import { rejected, type ParseResult } from "../toolkit/result";
import type { FeedInput } from "../toolkit/stream";
import { confidence, normalizeFeedValue, sighting, text, type ParserOptions } from "./common";
import type { IocSighting } from "./sighting";

const DEFAULT_SOURCE = "signature-base";
const C2_TYPES: readonly IndicatorType[] = ["domain", "ipv4", "ipv6", "cidr", "url"];
const HASH_TYPES: readonly IndicatorType[] = ["md5", "sha1", "sha256", "sha512"];
const URL_IN_TEXT = /https?:\/\/\S+/;
const SCORE = /^\d{1,3}$/;
// File header lines ("# LOKI C2 IOCs", "# FORMAT ----"), the closing
// "# Last Line" and commented-out entries ("# <hash>;<comment>") are not
// group names.
const NOT_A_GROUP = /^(?:loki\b|format\b|examples?\b|this file\b|last line$|-+$|#)|;/i;

interface Context {
  label: string | null;
  reference: string | null;
}

const NO_CONTEXT: Context = { label: null, reference: null };

/** The text without a trailing run of the given characters (a loop: a `[…]+$` pattern backtracks on long runs). */
function trimTrailing(value: string, chars: string): string {
  let end = value.length;
  while (end > 0 && chars.includes(value[end - 1] ?? "")) end -= 1;
  return value.slice(0, end);
}

/**
 * "Sofacy report Dec 2015 https://goo.gl/WSvEM8" -> label "Sofacy report Dec 2015"
 * and the URL as reference. The label is what comes before the URL or the
 * first " - ", which is where these comments put the campaign or report name.
 */
function contextOf(comment: string): Context {
  const reference = URL_IN_TEXT.exec(comment)?.[0] ?? null;
  const beforeUrl = reference === null ? comment : comment.slice(0, comment.indexOf(reference));
  const label = text(trimTrailing(beforeUrl.split(" - ")[0] ?? "", " \t:-"));
  return { label, reference };
}

/**
 * LOKI / signature-base IOC list: `value[;comment]` lines, grouped under
 * `# group` comments (a blank line ends a group). The comment is a LOKI
 * score (0-100, used as confidence) or a description of the campaign.
 */
async function* parseSignatureBase(input: FeedInput, kind: "c2" | "hash", options: ParserOptions): AsyncGenerator<ParseResult<IocSighting>> {
  const source = options.source ?? DEFAULT_SOURCE;
  const expected = kind === "c2" ? C2_TYPES : HASH_TYPES;
  let group = NO_CONTEXT;
  for await (const lines of readLines(input))
    for (const { number, text: line } of lines) {
      const location = `line ${number}`;
      if (line === null) {
        yield rejected(location, "line too long");
        continue;
      }
      const trimmed = line.trim();
      if (trimmed === "") {
        group = NO_CONTEXT;
        continue;
      }
      if (trimmed.startsWith("#")) {
        const comment = trimmed.replace(/^#+\s*/, "");
        group = comment === "" || NOT_A_GROUP.test(comment) ? NO_CONTEXT : contextOf(comment);
        continue;
      }
      const [rawValue = "", ...rest] = trimmed.split(";");
      const raw = rawValue.trim();
      const value = normalizeFeedValue(raw, expected);
      if (!value.ok) {
        yield rejected(location, value.reason);
        continue;
      }
      // "<value>;60", "<value>;60;NTIOLib.sys" or "<value>;<description>".
      const score = rest[0] !== undefined && SCORE.test(rest[0].trim()) ? confidence(rest.shift()) : null;
      const description = text(rest.join(";"));
      const described = description === null ? NO_CONTEXT : contextOf(description);
      const tags = [group.label, described.label].filter((tag, i, all): tag is string => tag !== null && all.indexOf(tag) === i);
      yield sighting(source, raw, value, {
        location,
        threatType: kind === "c2" ? "botnet_cc" : "payload",
        tags,
        confidence: score,
        reference: described.reference ?? group.reference,
        cveTexts: [description],
      });
    }
}

/** signature-base `iocs/c2-iocs.txt`: C2 domains and IPs, optionally `;score`. */
export function parseSignatureBaseC2(input: FeedInput, options: ParserOptions = {}): AsyncGenerator<ParseResult<IocSighting>> {
  return parseSignatureBase(input, "c2", options);
}

/** signature-base `iocs/hash-iocs.txt`: `hash;description`. */
export function parseSignatureBaseHashes(input: FeedInput, options: ParserOptions = {}): AsyncGenerator<ParseResult<IocSighting>> {
  return parseSignatureBase(input, "hash", options);
}
