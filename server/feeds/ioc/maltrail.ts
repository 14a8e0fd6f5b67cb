import type { IndicatorType } from "../../../shared/ioc/types";
import { tarFiles } from "../toolkit/archive";
import { readLines } from "../toolkit/lines";
import { rejected, type ParseResult } from "../toolkit/result";
import type { FeedInput } from "../toolkit/stream";
import { ANY_TYPE, normalizeFeedValue, sighting, splitTags, type ParserOptions } from "./common";
import type { IocSighting } from "./sighting";

const DEFAULT_SOURCE = "maltrail";
const TRAIL_FILE = /(?:^|\/)trails\/static\/(?:(malware|malicious|suspicious)\/)?([^/]+)\.txt$/;
/** Where an inline comment starts; what precedes it is trimmed. */
const INLINE_COMMENT = /\s#/;
const SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i;
// Categories whose file names are families or toolkits (emotet, cobaltstrike,
// ek_rig); the others name a kind of activity (onion, mass_scanner).
const FAMILY_CATEGORIES = new Set(["malware", "malicious"]);
/**
 * Maltrail splits a large file in parts (`interlock-1.txt`, `interlock-2.txt`),
 * each saying `# Note: Continuation of /malware/interlock.txt trail` in its
 * header: the parts' trails are the first file's family.
 */
const CONTINUATION = /^(?:note:\s*)?continuation of\s+(\S+)/i;
const URL_ONLY: readonly IndicatorType[] = ["url"];

interface TrailFile {
  category: string;
  name: string;
}

/** "trails/static/malware/emotet.txt" -> malware / emotet; null for other files. */
export function trailFileOf(path: string): TrailFile | null {
  const match = TRAIL_FILE.exec(path);
  if (match?.[2] === undefined) return null;
  const name = match[2];
  const category = match[1] ?? (name.startsWith("mass_scanner") ? "mass_scanner" : name);
  return { category, name };
}

/**
 * Reads one trail file. Trails are domains, IPs (optionally with a port),
 * CIDRs, full URLs, or scheme-less "host/path" trails, which maltrail matches
 * against HTTP requests and are therefore stored as http:// URLs. Path-only
 * trails ("/gate.php") and regex trails name no host and are rejected.
 * `# Reference:` and `# Aliases:` comments apply to the trails below them; a
 * `Continuation of <file>` note before the first trail names the file whose
 * family (or tag) they carry.
 */
export async function* parseMaltrailFile(
  input: FeedInput,
  file: TrailFile & { path: string },
  options: ParserOptions = {},
): AsyncGenerator<ParseResult<IocSighting>> {
  const source = options.source ?? DEFAULT_SOURCE;
  const familyFile = FAMILY_CATEGORIES.has(file.category);
  // The file's name, or the first file's when this one continues it.
  let name = file.name;
  let aliases: string[] = [];
  let references: string[] = [];
  let trailsSinceComment = false;
  let sawTrail = false;
  for await (const lines of readLines(input))
    for (const { number, text } of lines) {
      const location = `${file.path}:${number}`;
      if (text === null) {
        yield rejected(location, "line too long");
        continue;
      }
      const line = text.trim();
      if (line === "") continue;
      if (line.startsWith("#")) {
        // A comment after trails starts a new group of trails.
        if (trailsSinceComment) {
          references = [];
          trailsSinceComment = false;
        }
        const comment = line.replace(/^#+\s*/, "");
        if (/^reference:/i.test(comment)) {
          const url = /https?:\/\/\S+/.exec(comment)?.[0];
          if (url !== undefined) references.push(url);
        } else if (/^aliases:/i.test(comment)) {
          aliases = splitTags(comment.replace(/^aliases:\s*/i, ""));
        } else if (!sawTrail && name === file.name) {
          // The first note names the first file: cobaltstrike-2.txt continues cobaltstrike.txt, then cobaltstrike-1.txt.
          name = continuedFile(comment) ?? name;
        }
        continue;
      }
      trailsSinceComment = true;
      sawTrail = true;
      const comment = line.search(INLINE_COMMENT);
      const raw = comment < 0 ? line : line.slice(0, comment).trimEnd();
      if (raw.startsWith("/")) {
        yield rejected(location, "path-only trail names no host");
        continue;
      }
      const hostPath = !SCHEME.test(raw) && raw.includes("/") && !/^[\d.]+\/\d{1,2}$/.test(raw);
      const value = hostPath ? normalizeFeedValue(`http://${raw}`, URL_ONLY) : normalizeFeedValue(raw, ANY_TYPE);
      if (!value.ok) {
        yield rejected(location, value.reason);
        continue;
      }
      yield sighting(source, raw, value, {
        location,
        threatType: file.category,
        malwareFamily: familyFile ? name : null,
        // A family's aliases name the family, not each trail (they become the family's aliases).
        tags: familyFile ? [] : [name, ...aliases],
        aliases: familyFile ? aliases : [],
        reference: references[0] ?? null,
      });
    }
}

/** The name of the file a "Continuation of /malware/interlock.txt, …" note continues ("interlock"), or null. */
function continuedFile(comment: string): string | null {
  const path = CONTINUATION.exec(comment)?.[1]?.replace(/,$/, "");
  if (path === undefined || !path.endsWith(".txt")) return null;
  const base = path.slice(path.lastIndexOf("/") + 1, -".txt".length);
  return base === "" ? null : base;
}

/**
 * Maltrail's static trails as a (gzipped) tar of `trails/static/**.txt`. The
 * trails carry no dates: the newest trail file's time in the archive (in
 * GitHub's archives, the commit's) is when the list was last updated.
 */
export async function* parseMaltrailTar(input: FeedInput, options: ParserOptions = {}): AsyncGenerator<ParseResult<IocSighting>> {
  for await (const entry of tarFiles(input)) {
    const file = trailFileOf(entry.name);
    if (file === null) continue;
    if (entry.modified !== null) options.onPublished?.(entry.modified.toISOString());
    yield* parseMaltrailFile(entry.body, { ...file, path: entry.name }, options);
  }
}
