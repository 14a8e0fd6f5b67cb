import { existsSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import type { Readable } from "node:stream";
import type { IocSighting } from "../feeds/ioc/sighting";
import type { ParserOptions } from "../feeds/ioc/common";
import { parseFeodoCsv } from "../feeds/ioc/feodo";
import { abuseChLastUpdated } from "../feeds/ioc/last-updated";
import { parseMaltrailTar } from "../feeds/ioc/maltrail";
import { parseHashList, parseMalwareBazaarCsv } from "../feeds/ioc/malwarebazaar";
import { MAX_EVENT_FILE_BYTES, parseMispEvent, parseMispFeedTar, parseMispManifest } from "../feeds/ioc/misp";
import { parseSignatureBaseC2, parseSignatureBaseHashes } from "../feeds/ioc/signature-base";
import { parseStixBundle } from "../feeds/ioc/stix";
import { parseThreatFoxCsv, parseThreatFoxJson } from "../feeds/ioc/threatfox";
import { parseTweetFeedCsv } from "../feeds/ioc/tweetfeed";
import { parseUrlhausCsv } from "../feeds/ioc/urlhaus";
import { parseWarninglistText, type Warninglist } from "../feeds/warninglists/parse";
import { isUrl } from "./download";
import { isTar, tarFiles } from "../feeds/toolkit/archive";
import { isDirectory } from "../feeds/toolkit/file";
import type { ParseResult } from "../feeds/toolkit/result";
import { peek, readText } from "../feeds/toolkit/stream";
import { feedFiles } from "./readers";
import type { FeedFile, ReadContext } from "./run";

type IocParser = (input: Readable, options: ParserOptions) => AsyncIterable<ParseResult<IocSighting>>;

/** IOC parsers name lines, not files; the file name makes a rejection findable. */
async function* inFile(file: FeedFile, results: AsyncIterable<ParseResult<IocSighting>>): AsyncGenerator<ParseResult<IocSighting>> {
  for await (const result of results) {
    yield result.ok ? result : { ok: false, location: `${file.name}:${result.location}`, reason: result.reason };
  }
}

/**
 * Reads every file of the source with the parser `choose` picks for it, by
 * name or by its first (decompressed) bytes: `head` is their text, `bytes`
 * the bytes themselves. `published` finds in that text when the publisher
 * generated the file, for formats that say so in a header.
 */
function iocReader(
  accept: RegExp,
  choose: (file: FeedFile, head: string, bytes: Buffer) => IocParser,
  published: (head: string) => string | null = () => null,
) {
  return async function* read(ctx: ReadContext): AsyncGenerator<ParseResult<IocSighting>> {
    for await (const file of feedFiles(ctx, (name) => accept.test(name))) {
      const { head, stream } = await peek(await ctx.open(file));
      const text = head.subarray(0, 4096).toString("utf8").trimStart();
      const at = published(text);
      if (at !== null) ctx.setPublished(at);
      yield* inFile(file, choose(file, text, head)(stream, { source: ctx.source, onPublished: ctx.setPublished }));
    }
  };
}

const CSV_OR_JSON = /\.(csv|json|txt)(\.gz)?$/i;

export const readThreatFox = iocReader(CSV_OR_JSON, (_file, head) => (head.startsWith("{") ? parseThreatFoxJson : parseThreatFoxCsv), abuseChLastUpdated);
export const readUrlhaus = iocReader(CSV_OR_JSON, () => parseUrlhausCsv, abuseChLastUpdated);
export const readFeodo = iocReader(CSV_OR_JSON, () => parseFeodoCsv, abuseChLastUpdated);
/** The CSV export, or the plain hash lists ("recent md5") MalwareBazaar also publishes. */
export const readMalwareBazaar = iocReader(
  CSV_OR_JSON,
  (_file, head) => (/first_seen_utc/.test(head) ? parseMalwareBazaarCsv : parseHashList),
  abuseChLastUpdated,
);
/**
 * Where a MISP feed's progress is kept in the source's cursor: per feed (its
 * base location), the timestamp of the newest event read and whether events
 * were left for the next run.
 */
interface MispFeedState {
  timestamp: number;
  more: boolean;
}
type MispFeedStates = Record<string, MispFeedState>;

function mispFeedStates(cursor: string | null): MispFeedStates {
  if (!cursor?.startsWith("{")) return {};
  try {
    const parsed = JSON.parse(cursor) as { mispFeeds?: unknown };
    return typeof parsed.mispFeeds === "object" && parsed.mispFeeds !== null ? (parsed.mispFeeds as MispFeedStates) : {};
  } catch {
    return {};
  }
}

/**
 * The base of a live MISP feed, or null: a URL ending in `/manifest.json` or
 * in `/` (the feed's folder: TweetFeed's other files are all named), a local
 * `manifest.json`, or a directory holding one.
 */
async function mispFeedBase(location: string): Promise<string | null> {
  if (isUrl(location)) {
    const url = new URL(location);
    if (url.pathname.endsWith("/manifest.json")) {
      url.pathname = url.pathname.slice(0, -"manifest.json".length);
      return url.href;
    }
    return url.pathname.endsWith("/") ? url.href : null;
  }
  if (basename(location) === "manifest.json") return dirname(location);
  return (await isDirectory(location)) && existsSync(join(location, "manifest.json")) ? location : null;
}

/** Whether a location is a live MISP feed (read by its manifest and a cursor, not whole). */
export function isMispFeedLocation(location: string): boolean {
  if (isUrl(location)) {
    const { pathname } = new URL(location);
    return pathname.endsWith("/manifest.json") || pathname.endsWith("/");
  }
  return basename(location) === "manifest.json" || existsSync(join(location, "manifest.json"));
}

function inFeed(base: string, name: string): string {
  return isUrl(base) ? new URL(name, base).href : join(base, name);
}

/** A 404/410 answer or a missing local file: the manifest lists an event the feed does not have. */
function isMissing(error: unknown): boolean {
  const { status, code } = error as { status?: number; code?: string };
  return status === 404 || status === 410 || code === "ENOENT";
}

/**
 * A live MISP feed, as MISP itself syncs one: `manifest.json` lists every
 * event with its timestamp, and `<uuid>.json` holds the event. The manifest
 * is fetched conditionally (an unchanged feed costs one 304); then only the
 * events whose timestamp is newer than the cursor's are fetched, oldest first,
 * one at a time (each download is parsed, then deleted), at most
 * `ctx.limits.mispEventsPerRun` of them: the others follow in the next runs,
 * with the manifest fetched again even if unchanged. Events of one timestamp
 * are never split between runs. An event the manifest lists but the feed
 * does not serve (404) is counted as rejected; any other download error fails
 * the import, which changes nothing.
 */
async function* readMispFeedAt(ctx: ReadContext, base: string, states: MispFeedStates): AsyncGenerator<ParseResult<IocSighting>> {
  const previous = states[base];
  const manifestFile = await ctx.fetch(inFeed(base, "manifest.json"), { conditional: previous?.more !== true });
  if (!manifestFile) return;
  const manifest = parseMispManifest(await readText(await ctx.open(manifestFile)), manifestFile.name);
  await ctx.release(manifestFile);
  for (const problem of manifest.rejected) yield { ok: false, ...problem };

  const since = previous?.timestamp ?? -1;
  const due = manifest.events.filter((event) => event.timestamp > since);
  let take = Math.min(due.length, ctx.limits.mispEventsPerRun);
  while (take > 0 && take < due.length && due[take]!.timestamp === due[take - 1]!.timestamp) take += 1;
  const batch = due.slice(0, take);
  ctx.logger.info(
    { feed: base, events: manifest.events.length, changed: due.length, reading: batch.length },
    due.length > batch.length ? "MISP feed: reading the oldest changes; the rest follow in the next runs" : "MISP feed: reading the changed events",
  );
  const locations = batch.map((event) => inFeed(base, `${event.uuid}.json`));
  if (!isUrl(base)) await ctx.plan(locations.filter((location) => existsSync(location)));

  for (const [i, event] of batch.entries()) {
    const name = `${event.uuid}.json`;
    let file: FeedFile | null;
    try {
      file = await ctx.fetch(locations[i]!);
    } catch (error) {
      if (!isMissing(error)) throw error;
      yield { ok: false, location: name, reason: "listed in manifest.json but not in the feed" };
      continue;
    }
    if (!file) continue;
    if (file.size > MAX_EVENT_FILE_BYTES) {
      yield { ok: false, location: name, reason: `event file of ${file.size} bytes exceeds ${MAX_EVENT_FILE_BYTES}` };
    } else {
      yield* parseMispEvent(await ctx.open(file), { source: ctx.source, location: name });
    }
    await ctx.release(file);
  }
  states[base] = { timestamp: batch.at(-1)?.timestamp ?? since, more: due.length > batch.length };
}

/** Runs `other` for each location that is not a live MISP feed, and keeps the feeds' progress in the cursor. */
function withMispFeeds(other: (ctx: ReadContext) => AsyncIterable<ParseResult<IocSighting>>) {
  return async function* read(ctx: ReadContext): AsyncGenerator<ParseResult<IocSighting>> {
    const states = mispFeedStates(ctx.cursor);
    let feeds = 0;
    for (const location of ctx.locations) {
      const base = await mispFeedBase(location);
      if (base === null) {
        yield* other({ ...ctx, locations: [location] });
        continue;
      }
      yield* readMispFeedAt(ctx, base, states);
      feeds += 1;
    }
    if (feeds > 0) ctx.setCursor(JSON.stringify({ mispFeeds: states }));
  };
}

/**
 * TweetFeed publishes the same IOCs as CSV (daily files, today/week/month),
 * as a MISP feed (its live `misp/` folder by URL or directory, a tar of that
 * folder, or one event file) and as STIX 2.1 bundles; all of them land in
 * the one "tweetfeed" source.
 */
export const readTweetFeed = withMispFeeds(
  iocReader(/\.(csv|json|tar|tar\.gz|tgz)(\.gz)?$/i, (_file, head, bytes) => {
    if (isTar(bytes)) return parseMispFeedTar;
    if (!head.startsWith("{")) return parseTweetFeedCsv;
    return /^\{\s*"Event"/.test(head) ? parseMispEvent : parseStixBundle;
  }),
);
/** signature-base `iocs/`: the C2 list and the hash list (file names and regexes are not indicators). */
export const readSignatureBase = iocReader(/^(c2|hash)-iocs\.txt(\.gz)?$/i, (file) =>
  /hash/i.test(file.name) ? parseSignatureBaseHashes : parseSignatureBaseC2,
);
export const readMaltrail = iocReader(/\.(tar\.gz|tgz|tar)$/i, () => parseMaltrailTar);

/** `…/<name>/list.json`, on disk or in a URL. */
const WARNINGLIST_FILE = /(?:^|[/\\])([^/\\]+)[/\\]list\.json$/;
/** `<repository>-main/lists/<name>/list.json` inside the tarball. */
const TARBALL_LIST = /(?:^|\/)lists\/([^/]+)\/list\.json$/;

/**
 * MISP warninglists: a `lists/` folder (or a checkout holding one), the
 * repository tarball, or single `lists/<name>/list.json` files. A list is
 * named by its folder; an unreadable list is rejected and the others load.
 */
export async function* readWarninglists(ctx: ReadContext): AsyncGenerator<ParseResult<Warninglist>> {
  for await (const file of feedFiles(ctx, (name) => name === "list.json" || /\.(tar\.gz|tgz|tar)$/i.test(name))) {
    const { head, stream } = await peek(await ctx.open(file));
    if (isTar(head)) {
      for await (const entry of tarFiles(stream)) {
        const name = TARBALL_LIST.exec(entry.name)?.[1];
        if (name === undefined) continue;
        // In GitHub's archive, each file's time is the commit's.
        if (entry.modified !== null) ctx.setPublished(entry.modified.toISOString());
        yield parseWarninglistText(await readText(entry.body), name, `${file.name}:${entry.name}`);
      }
    } else {
      const name = WARNINGLIST_FILE.exec(file.location)?.[1] ?? basename(file.location, ".json");
      yield parseWarninglistText(await readText(stream), name, file.location);
    }
  }
}
