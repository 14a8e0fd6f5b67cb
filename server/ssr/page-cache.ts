import type { Request, Response } from "express";
import { LRUCache } from "lru-cache";
import { compressSegments, joinGzip, joinPlain, type GzipSegments } from "./gzip-segments";

/** A rendered response that any anonymous request for the same URL may be given. */
export interface CachedDocument {
  status: number;
  contentType: string;
  /** The body, split where each response's own nonce goes (one segment when it has none). */
  body: GzipSegments;
}

export interface PageCacheOptions {
  maxBytes: number;
  /** zlib level the documents are compressed with, once, when they are stored. */
  level: number;
}

/**
 * Rendered pages and page payloads, compressed once and kept by size. Keys
 * name everything a document depends on (build, data version, the hour of
 * the clock, the URL), so an entry is never stale: it just stops being asked
 * for, and the LRU lets it go.
 */
export class PageCache {
  readonly #entries: LRUCache<string, CachedDocument>;
  readonly #level: number;
  /** Keys being rendered now, each with what settles when its render ends (stored or not). */
  readonly #rendering = new Map<string, Promise<void>>();
  #hits = 0;
  #misses = 0;

  constructor({ maxBytes, level }: PageCacheOptions) {
    this.#level = level;
    this.#entries = new LRUCache<string, CachedDocument>({
      maxSize: Math.max(1, maxBytes),
      sizeCalculation: (doc) => doc.body.plain.reduce((sum, part) => sum + part.length, 0) + doc.body.deflated.reduce((sum, part) => sum + part.length, 0),
    });
  }

  get(key: string): CachedDocument | undefined {
    const doc = this.#entries.get(key);
    if (doc) this.#hits += 1;
    else this.#misses += 1;
    return doc;
  }

  /**
   * Looks again for a document this request already missed (it waited in line
   * meanwhile, and another request may have rendered it): a find turns that
   * miss into a hit, so each request still counts once.
   */
  getAfterMiss(key: string): CachedDocument | undefined {
    const doc = this.#entries.get(key);
    if (doc) {
      this.#misses -= 1;
      this.#hits += 1;
    }
    return doc;
  }

  /** Stores a document; `nonce` (if any) is cut out of it so each response can carry its own. */
  set(key: string, document: { status: number; contentType: string; text: string }, nonce: string | null): void {
    const segments = nonce ? document.text.split(nonce) : [document.text];
    this.#entries.set(key, { status: document.status, contentType: document.contentType, body: compressSegments(segments, this.#level) });
  }

  /**
   * Says that this request renders `key`, unless another request already
   * does (then null). The returned function ends the render, whether it stored
   * a document or not; calling it again does nothing.
   */
  startRender(key: string): (() => void) | null {
    if (this.#rendering.has(key)) return null;
    let settle!: () => void;
    const ended = new Promise<void>((resolve) => (settle = resolve));
    this.#rendering.set(key, ended);
    return () => {
      if (this.#rendering.get(key) === ended) this.#rendering.delete(key);
      settle();
    };
  }

  /** Settles when the render of `key` under way ends; undefined when none is. */
  rendering(key: string): Promise<void> | undefined {
    return this.#rendering.get(key);
  }

  stats(): { entries: number; bytes: number; hits: number; misses: number } {
    return { entries: this.#entries.size, bytes: this.#entries.calculatedSize, hits: this.#hits, misses: this.#misses };
  }
}

/** Sends a cached document with this response's nonce, gzipped when the client takes gzip. */
export function sendCachedDocument(req: Request, res: Response, doc: CachedDocument, nonce: string): void {
  res.status(doc.status);
  res.set({ "Content-Type": doc.contentType, "Cache-Control": "private, no-cache", Vary: "Accept-Encoding" });
  if (req.acceptsEncodings("gzip", "identity") === "gzip") {
    // Already compressed: the compression middleware leaves a response with a Content-Encoding alone.
    res.set("Content-Encoding", "gzip");
    res.end(joinGzip(doc.body, nonce));
  } else {
    res.end(joinPlain(doc.body, nonce));
  }
}
