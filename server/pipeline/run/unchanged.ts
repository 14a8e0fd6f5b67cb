import { isUrl } from "../download";
import { fingerprintFile, fingerprintLocation } from "../engine/fingerprint";
import type { RunFiles } from "./files";
import type { FeedFile } from "./types";

/**
 * Whole files first: fetches and fingerprints every location of a source
 * read whole. Returns null when none changed since the last successful
 * import and `maySkip` (that success read these same locations), so nothing
 * is read; otherwise the files already fetched, with those the publisher
 * answered 304 for fetched again whole, since something changed.
 */
export async function prefetchWholeFiles(files: RunFiles, locations: readonly string[], maySkip: boolean): Promise<Map<string, FeedFile> | null> {
  const prefetched = new Map<string, FeedFile>();
  const unchanged: string[] = [];
  for (const location of locations) {
    const file = isUrl(location) ? await files.download(location, true) : null;
    const hash = isUrl(location) ? (file ? await fingerprintFile(file.path) : null) : await fingerprintLocation(location);
    if (file) prefetched.set(location, file);
    const same = hash === null || hash === files.storedHash(location);
    if (same) unchanged.push(location);
    files.learnt.set(location, {
      validators: files.learnt.get(location)?.validators ?? null,
      contentHash: hash ?? files.storedHash(location) ?? null,
    });
  }
  if (unchanged.length === locations.length && maySkip) return null;
  for (const location of unchanged)
    if (isUrl(location) && !prefetched.has(location)) {
      const file = await files.download(location, false);
      if (file) prefetched.set(location, file);
    }
  return prefetched;
}
