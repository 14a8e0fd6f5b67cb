import { statSync } from "node:fs";
import { basename } from "node:path";
import pino from "pino";
import { openFeedFile } from "../server/feeds/toolkit/file";
import { DEFAULT_READ_LIMITS, type FeedFile, type ReadContext } from "../server/pipeline/run";

const silent = pino({ level: "silent" });

/** A source's reader context over local files: no download, no database, nothing remembered. */
export function readContext(name: string, locations: string[]): ReadContext {
  return {
    source: name,
    locations,
    signal: new AbortController().signal,
    logger: silent,
    now: new Date(),
    headers: {},
    limits: DEFAULT_READ_LIMITS,
    cursor: null,
    setCursor: () => undefined,
    setPublished: () => undefined,
    plan: async () => undefined,
    async fetch(location): Promise<FeedFile> {
      return { location, path: location, name: basename(location), size: statSync(location).size, lastModified: null };
    },
    open: (file) => openFeedFile(file.path),
    release: async () => undefined,
  };
}
