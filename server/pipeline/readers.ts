import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import type { CveRecord, CweEntry, EpssScore, KevEntry, TrickestRecord } from "../feeds/cve/records";
import { parseCveJson5Lines, parseCveJson5Text } from "../feeds/cve/cve-json5";
import { isDeltaFileName, parseDeltaDocument, planFromDeltas, recordPathInTree } from "../feeds/cve/cvelist";
import { parseCweXml } from "../feeds/cve/cwe";
import { dateInFileName, parseEpssCsv } from "../feeds/cve/epss";
import { parseKev } from "../feeds/cve/kev";
import { parseNvdPage } from "../feeds/cve/nvd";
import { parseTrickestLines, parseTrickestMarkdown } from "../feeds/cve/trickest";
import { isUrl } from "./download";
import { tarFiles } from "../feeds/toolkit/archive";
import { isDirectory, walkFiles } from "../feeds/toolkit/file";
import type { ParseResult } from "../feeds/toolkit/result";
import { readText } from "../feeds/toolkit/stream";
import type { FeedFile, ReadContext } from "./run";

const TARBALL = /\.(tar\.gz|tgz)$/i;

/**
 * Every file behind the context's locations, in order: URLs are fetched
 * (skipped when the publisher answers 304), directories walked for the names
 * `accept` admits. A directory's files are announced up front for progress.
 */
export async function* feedFiles(ctx: ReadContext, accept: (name: string) => boolean): AsyncGenerator<FeedFile> {
  for (const location of ctx.locations) {
    if (!isUrl(location) && (await isDirectory(location))) {
      const paths: string[] = [];
      for await (const path of walkFiles(location, accept)) paths.push(path);
      if (paths.length === 0) throw new Error(`${location}: no feed file in this directory`);
      await ctx.plan(paths);
      for (const path of paths) {
        const file = await ctx.fetch(path);
        if (file) yield file;
      }
    } else {
      const file = await ctx.fetch(location);
      if (file) yield file;
    }
  }
}

/** YYYY-MM-DD of an HTTP date or mtime string. */
function isoDay(date: string | null): string | null {
  if (!date) return null;
  const ms = Date.parse(date);
  return Number.isNaN(ms) ? null : new Date(ms).toISOString().slice(0, 10);
}

export async function* readKev(ctx: ReadContext): AsyncGenerator<ParseResult<KevEntry>> {
  for await (const file of feedFiles(ctx, (name) => /\.(json|csv)(\.gz)?$/i.test(name) && !/schema/i.test(name))) {
    yield* parseKev(await ctx.open(file), file.name);
  }
}

/** Files are read in name order, so a folder of daily files builds the history oldest first. */
export async function* readEpss(ctx: ReadContext): AsyncGenerator<ParseResult<EpssScore>> {
  for await (const file of feedFiles(ctx, (name) => /\.csv(\.gz)?$/i.test(name))) {
    const fallbackScoreDate = dateInFileName(file.name) ?? isoDay(file.lastModified);
    yield* parseEpssCsv(await ctx.open(file), file.name, { fallbackScoreDate });
  }
}

export async function* readCwe(ctx: ReadContext): AsyncGenerator<ParseResult<CweEntry>> {
  for await (const file of feedFiles(ctx, (name) => /\.xml(\.gz)?$/i.test(name))) {
    yield* parseCweXml(await ctx.open(file), file.name, ctx.setPublished);
  }
}

/** Trickest bundles (.jsonl.gz), the repository tarball, or a checkout's CVE-*.md files. */
export async function* readTrickest(ctx: ReadContext): AsyncGenerator<ParseResult<TrickestRecord>> {
  const accept = (name: string) => /\.jsonl(\.gz)?$/i.test(name) || /^CVE-\d{4}-\d+\.md$/i.test(name);
  for await (const file of feedFiles(ctx, accept)) {
    if (TARBALL.test(file.name)) {
      for await (const entry of tarFiles(await ctx.open(file))) {
        if (!/\/CVE-\d{4}-\d+\.md$/i.test(entry.name)) continue;
        // Its pages carry no date; in GitHub's archive, each file's time is the commit's.
        if (entry.modified !== null) ctx.setPublished(entry.modified.toISOString());
        yield parseTrickestMarkdown(entry.name, await readText(entry.body), `${file.name}:${entry.name}`);
      }
    } else if (/\.md$/i.test(file.name)) {
      yield parseTrickestMarkdown(file.path, await readText(await ctx.open(file)), file.path);
    } else {
      yield* parseTrickestLines(await ctx.open(file), file.name);
    }
  }
}

/** One CVE JSON 5 file of any packaging: bundle, tarball of a tree, or a single record. */
async function* cveJson5File(ctx: ReadContext, file: FeedFile): AsyncGenerator<ParseResult<CveRecord>> {
  if (TARBALL.test(file.name)) {
    for await (const entry of tarFiles(await ctx.open(file))) {
      if (!/\/CVE-\d{4}-\d+\.json$/i.test(entry.name)) continue;
      yield parseCveJson5Text(await readText(entry.body), `${file.name}:${entry.name}`);
    }
  } else if (/\.jsonl(\.gz)?$/i.test(file.name)) {
    yield* parseCveJson5Lines(await ctx.open(file), file.name);
  } else {
    yield parseCveJson5Text(await readText(await ctx.open(file)), file.location);
  }
}

/** The delta log of a location: a delta URL itself, or the one inside a cvelistV5 checkout. */
function deltaLocationOf(location: string): string | null {
  if (isDeltaFileName(location)) return location;
  if (isUrl(location)) return null;
  for (const name of ["deltaLog.json", "delta.json"]) {
    const path = join(location, "cves", name);
    if (existsSync(path)) return path;
  }
  return null;
}

function recordLocation(deltaLocation: string, cveId: string, githubLink: string | null): string {
  const relative = recordPathInTree(cveId, githubLink);
  return isUrl(deltaLocation) ? new URL(relative, deltaLocation).href : join(dirname(deltaLocation), relative);
}

/**
 * CVE JSON 5.x from any of: vulnrichment-style JSON Lines bundles, a
 * cvelistV5 checkout (`cves/YYYY/Nxxx/CVE-*.json`), its GitHub tarball, or
 * single record files. With a cursor and a delta log that reaches back to
 * it, only the records the deltas name are read; otherwise everything is.
 */
export async function* readCveJson5(ctx: ReadContext): AsyncGenerator<ParseResult<CveRecord>> {
  const deltaLocation = ctx.locations.map(deltaLocationOf).find((l): l is string => l !== null) ?? null;
  let newestFetchTime: string | null = null;
  if (deltaLocation) {
    const deltaFile = await ctx.fetch(deltaLocation, { conditional: false });
    const deltas = deltaFile ? parseDeltaDocument(await readText(await ctx.open(deltaFile)), deltaFile.name) : [];
    const plan = planFromDeltas(deltas, ctx.cursor);
    newestFetchTime = plan.newestFetchTime;
    if (plan.covered) {
      ctx.logger.info({ changes: plan.changes.length, since: ctx.cursor }, "incremental update from the delta log");
      for (const change of plan.changes) {
        const file = await ctx.fetch(recordLocation(deltaLocation, change.cveId, change.githubLink), {
          conditional: false,
        });
        if (file) yield* cveJson5File(ctx, file);
      }
      ctx.setCursor(newestFetchTime);
      return;
    }
    if (ctx.cursor) ctx.logger.info({ cursor: ctx.cursor }, "the delta log does not reach back to the cursor; reading everything");
  }

  const records = (name: string) => /\.jsonl(\.gz)?$/i.test(name) || /^CVE-\d{4}-\d+\.json$/i.test(name);
  const treeCtx = (locations: string[]): ReadContext => ({ ...ctx, locations });
  for (const location of ctx.locations) {
    if (isDeltaFileName(location)) continue;
    const tree = !isUrl(location) && existsSync(join(location, "cves")) ? join(location, "cves") : location;
    for await (const file of feedFiles(treeCtx([tree]), records)) yield* cveJson5File(ctx, file);
  }
  if (newestFetchTime) ctx.setCursor(newestFetchTime);
}

/** NVD asks for ISO-8601 with an explicit offset. */
function nvdDate(date: Date): string {
  return date.toISOString().replace("Z", "+00:00");
}

/** NVD accepts date ranges of at most 120 days. */
const NVD_WINDOW_MS = 120 * 86_400_000;
const NVD_PAGE_SIZE = 2_000;

/**
 * NVD CVE API 2.0. A URL is paged through (`startIndex`/`resultsPerPage`),
 * limited to what changed since the cursor in ≤120-day windows, pausing
 * between requests as NVD's rate limits ask (5 per 30 s, 50 with an API key).
 * Local files and folders are read as saved API pages.
 */
export async function* readNvd(ctx: ReadContext): AsyncGenerator<ParseResult<CveRecord>> {
  const pause = ctx.headers.apiKey ? 600 : 6_000;
  for (const location of ctx.locations) {
    if (!isUrl(location)) {
      for await (const file of feedFiles({ ...ctx, locations: [location] }, (name) => /\.json(\.gz)?$/i.test(name))) {
        yield* parseNvdPage(await readText(await ctx.open(file)), file.name).records;
      }
      continue;
    }
    const windows: Array<[Date, Date] | null> = [];
    if (ctx.cursor) {
      for (let start = new Date(ctx.cursor).getTime(); start < ctx.now.getTime(); start += NVD_WINDOW_MS) {
        windows.push([new Date(start), new Date(Math.min(start + NVD_WINDOW_MS, ctx.now.getTime()))]);
      }
    } else {
      windows.push(null);
    }
    let requests = 0;
    for (const window of windows) {
      for (let startIndex = 0, total = 1; startIndex < total; startIndex += NVD_PAGE_SIZE) {
        if (requests++ > 0) await delay(pause, undefined, { signal: ctx.signal });
        const url = new URL(location);
        url.searchParams.set("resultsPerPage", String(NVD_PAGE_SIZE));
        url.searchParams.set("startIndex", String(startIndex));
        if (window) {
          url.searchParams.set("lastModStartDate", nvdDate(window[0]));
          url.searchParams.set("lastModEndDate", nvdDate(window[1]));
        }
        const file = await ctx.fetch(url.href, { conditional: false });
        if (!file) continue;
        const page = parseNvdPage(await readText(await ctx.open(file)), `${location}?startIndex=${startIndex}`);
        total = page.totalResults;
        yield* page.records;
      }
    }
    ctx.setCursor(ctx.now.toISOString());
  }
}
