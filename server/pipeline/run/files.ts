import { rm, stat } from "node:fs/promises";
import { basename, join } from "node:path";
import type { Kysely } from "kysely";
import type { Logger } from "pino";
import type { Database, SourceFilesTable } from "../../db/schema";
import { downloadToFile } from "../download";
import { createDownloadDir } from "./download-dir";
import type { RunProgress } from "./progress";
import type { FileState } from "./records";
import type { FeedFile } from "./types";

/**
 * The files of one run: what the last success stored about each location,
 * what this run learns (published with the merge), and the temporary
 * directory downloads go to, removed when the run ends.
 */
export class RunFiles {
  /** Validators and fingerprints this run learnt, per location. */
  readonly learnt = new Map<string, FileState>();
  private tempDir: string | null = null;
  private downloads = 0;

  private constructor(
    private readonly source: string,
    private readonly stored: ReadonlyMap<string, SourceFilesTable>,
    private readonly progress: RunProgress,
    private readonly log: Logger,
    private readonly headers: Record<string, string>,
    private readonly signal: AbortSignal,
  ) {}

  static async load(
    db: Kysely<Database>,
    source: string,
    context: { progress: RunProgress; log: Logger; headers: Record<string, string>; signal: AbortSignal },
  ): Promise<RunFiles> {
    const rows = await db.selectFrom("source_files").selectAll().where("source", "=", source).execute();
    const stored = new Map(rows.map((row) => [row.location, row]));
    return new RunFiles(source, stored, context.progress, context.log, context.headers, context.signal);
  }

  /** The fingerprint of the location as last imported. */
  storedHash(location: string): string | null | undefined {
    return this.stored.get(location)?.content_hash;
  }

  /** Downloads a URL, conditionally on the stored validators when asked: null means 304 Not Modified. */
  async download(location: string, conditional: boolean): Promise<FeedFile | null> {
    this.tempDir ??= await createDownloadDir(this.source);
    const name = basename(new URL(location).pathname) || "download";
    const path = join(this.tempDir, `${this.downloads++}-${name}`);
    const progress = this.progress.state;
    // Download bytes show as progress while they arrive, then give way to the bytes read.
    const downloadStart = { done: progress.done, total: progress.total };
    progress.phase = "download";
    const stored = this.stored.get(location);
    const result = await downloadToFile(location, path, {
      validators: conditional && stored ? { etag: stored.etag, lastModified: stored.last_modified } : null,
      headers: this.headers,
      signal: this.signal,
      onLength: (bytes) => {
        progress.total = downloadStart.total + bytes;
      },
      onBytes: (bytes) => {
        progress.done += bytes;
        this.progress.emit();
      },
    });
    progress.phase = "import";
    progress.done = downloadStart.done;
    progress.total = downloadStart.total;
    if (result.notModified) {
      this.log.info({ location }, "not modified since the last import");
      return null;
    }
    this.learnt.set(location, { validators: result.validators, contentHash: this.learnt.get(location)?.contentHash ?? null });
    return { location, path, name, size: result.bytes, lastModified: result.lastModified };
  }

  async local(location: string): Promise<FeedFile> {
    const info = await stat(location);
    return { location, path: location, name: basename(location), size: info.size, lastModified: info.mtime.toUTCString() };
  }

  /** Deletes a downloaded copy once read; local files are left alone. */
  async release(file: FeedFile): Promise<void> {
    if (this.tempDir !== null && file.path !== file.location && file.path.startsWith(this.tempDir)) await rm(file.path, { force: true });
  }

  async dispose(): Promise<void> {
    if (this.tempDir) await rm(this.tempDir, { recursive: true, force: true });
  }
}
