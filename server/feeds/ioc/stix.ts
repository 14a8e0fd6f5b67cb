import type { IndicatorType } from "../../../shared/ioc/types";
import { streamJsonValues } from "../toolkit/json-stream";
import { rejected, type ParseResult } from "../toolkit/result";
import { textChunks, type FeedInput } from "../toolkit/stream";
import { confidence, normalizeFeedValue, quote, sighting, splitTags, text, toIsoUtc, type ParserOptions } from "./common";
import type { IocSighting } from "./sighting";

const DEFAULT_SOURCE = "stix";

/** STIX object path -> indicator types. File hashes are keyed separately below. */
const OBJECT_PATHS: Readonly<Record<string, readonly IndicatorType[]>> = {
  "url:value": ["url"],
  "domain-name:value": ["domain"],
  "ipv4-addr:value": ["ipv4", "cidr"],
  "ipv6-addr:value": ["ipv6", "cidr"],
  "email-addr:value": ["email"],
};
/** `file:hashes.<algorithm>`, with the algorithm upper-cased and "-" removed. */
const HASH_ALGORITHMS: Readonly<Record<string, IndicatorType>> = {
  MD5: "md5",
  SHA1: "sha1",
  SHA256: "sha256",
  SHA512: "sha512",
};

export interface PatternComparison {
  path: string;
  value: string;
}

const PATH = /^[a-z0-9-]+:[A-Za-z0-9_.'[\]*-]+/;

/**
 * Reads the simple STIX patterns indicator feeds use: equality comparisons
 * joined by OR, inside one or more observations joined by OR, e.g.
 * `[url:value = 'http://x/'] OR [domain-name:value = 'x']`. Anything else
 * (AND, FOLLOWEDBY, LIKE, MATCHES, qualifiers) does not name indicators one
 * by one and is refused with a reason.
 */
export function parseStixPattern(pattern: string): PatternComparison[] | string {
  const comparisons: PatternComparison[] = [];
  let i = 0;
  const skipSpace = (): void => {
    while (i < pattern.length && /\s/.test(pattern[i] ?? "")) i += 1;
  };
  const keyword = (word: string): boolean => {
    if (pattern.slice(i, i + word.length).toUpperCase() !== word || /\w/.test(pattern[i + word.length] ?? "")) return false;
    i += word.length;
    return true;
  };
  for (;;) {
    skipSpace();
    if (pattern[i] !== "[") return "expected '[' to open an observation";
    i += 1;
    for (;;) {
      skipSpace();
      const path = PATH.exec(pattern.slice(i))?.[0];
      if (path === undefined) return "expected an object path";
      i += path.length;
      skipSpace();
      if (pattern[i] !== "=") return `only '=' comparisons are supported (at ${path})`;
      i += 1;
      skipSpace();
      if (pattern[i] !== "'") return "expected a quoted string";
      let value = "";
      for (i += 1; ; i += 1) {
        const char = pattern[i];
        if (char === undefined) return "unterminated string";
        if (char === "\\") {
          i += 1;
          value += pattern[i] ?? "";
        } else if (char === "'") {
          i += 1;
          break;
        } else {
          value += char;
        }
      }
      comparisons.push({ path, value });
      skipSpace();
      if (keyword("OR")) continue;
      if (pattern[i] === "]") {
        i += 1;
        break;
      }
      return "only OR may join comparisons";
    }
    skipSpace();
    if (i >= pattern.length) return comparisons;
    if (!keyword("OR")) return "only OR may join observations";
  }
}

function typesFor(path: string): readonly IndicatorType[] | null {
  const known = OBJECT_PATHS[path];
  if (known !== undefined) return known;
  const hash = /^file:hashes\.'?([A-Za-z0-9-]+)'?$/.exec(path)?.[1];
  const type = hash === undefined ? undefined : HASH_ALGORITHMS[hash.toUpperCase().replaceAll("-", "")];
  return type === undefined ? null : [type];
}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function externalReferences(value: unknown): Json[] {
  return Array.isArray(value) ? value.filter(isObject) : [];
}

/**
 * STIX 2.1 bundle, streamed object by object. Each `indicator` with a STIX
 * pattern yields one record per value in the pattern; identities seen
 * earlier in the bundle name the reporter (`created_by_ref`).
 */
export async function* parseStixBundle(input: FeedInput, options: ParserOptions = {}): AsyncGenerator<ParseResult<IocSighting>> {
  const source = options.source ?? DEFAULT_SOURCE;
  const identities = new Map<string, string>();
  const selectObjects = (path: readonly (string | number)[]): boolean => path.length === 2 && path[0] === "objects";
  for await (const { path, value: object } of streamJsonValues(textChunks(input), selectObjects)) {
    let location = `objects[${String(path[1])}]`;
    if (!isObject(object)) {
      yield rejected(location, "not an object");
      continue;
    }
    if (object.type === "identity" && typeof object.id === "string" && typeof object.name === "string") {
      identities.set(object.id, object.name);
      continue;
    }
    if (object.type !== "indicator" || object.revoked === true) continue;
    if (typeof object.id === "string") location += ` ${object.id}`;
    if (object.pattern_type !== undefined && object.pattern_type !== "stix") {
      yield rejected(location, `pattern_type ${quote(String(object.pattern_type))} is not stix`);
      continue;
    }
    if (typeof object.pattern !== "string") {
      yield rejected(location, "indicator without a pattern");
      continue;
    }
    const comparisons = parseStixPattern(object.pattern);
    if (typeof comparisons === "string") {
      yield rejected(location, `${comparisons}: ${quote(object.pattern)}`);
      continue;
    }
    const references = externalReferences(object.external_references);
    const fields = {
      firstSeen: toIsoUtc(object.valid_from),
      threatType: Array.isArray(object.indicator_types) ? text(object.indicator_types[0]) : null,
      tags: splitTags(object.labels),
      confidence: confidence(object.confidence),
      reporter: typeof object.created_by_ref === "string" ? (identities.get(object.created_by_ref) ?? null) : null,
      reference: references.map((ref) => text(ref.url)).find((url) => url !== null) ?? null,
      cveTexts: [text(object.name), text(object.description), ...references.map((ref) => (ref.source_name === "cve" ? text(ref.external_id) : null))],
      location,
    };
    for (const { path: objectPath, value: raw } of comparisons) {
      const expected = typesFor(objectPath);
      if (expected === null) {
        yield rejected(location, `unsupported object path ${quote(objectPath)}`);
        continue;
      }
      const value = normalizeFeedValue(raw, expected);
      yield value.ok ? sighting(source, raw, value, fields) : rejected(location, value.reason);
    }
  }
}
