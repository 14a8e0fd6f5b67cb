import type { Request, Response } from "express";
import { LRUCache } from "lru-cache";
import { compressSegments, joinGzip, joinPlain, type GzipSegments } from "./gzip-segments";

/** A rendered response that any anonymous request for the same URL may be given. */
export interface CachedDocument {
  status: number;
  contentType: string;
  /** The body, split where each response's own nonce goes (one segment when it has none). */
  body: GzipSegments;
  /** When it was last stored or served (ms since the epoch). */
  servedAt: number;
}

/** Where a document is kept: its key, and its family (the same document for any data version or hour). */
export interface DocumentKey {
  id: string;
  family: string;
  /** The same document for this data version at any hour of the clock. */
  sameData: string;
}

export interface PageCacheOptions {
  maxBytes: number;
  /** zlib level the documents are compressed with, once, when they are stored. */
  level: number;
}

/**
 * How recently the document of the data just replaced must have been served
 * for a request to be given it while the new data's document renders.
 */
const PREVIOUS_SERVED_WITHIN_MS = 60_000;

/**
 * Rendered pages and page payloads, compressed once and kept by size. Keys
 * name everything a document depends on (build, data version, the hour of
 * the clock, the URL), so an entry is never stale: it just stops being asked
 * for, and the LRU lets it go.
 */
export class PageCache {
  readonly #entries: LRUCache<string, CachedDocument>;
  /** Each family's last stored key; bounded by size too, since URLs are the client's to choose. */
  readonly #latest = new LRUCache<string, DocumentKey>({
    max: 10_000,
    maxSize: 8 * 1024 * 1024,
    sizeCalculation: (key) => key.id.length + key.family.length + key.sameData.length,
  });
  readonly #level: number;
  /** Keys being rendered now, each with what settles when its render ends (stored or not). */
  readonly #rendering = new Map<string, Promise<void>>();
  #hits = 0;
  #misses = 0;
  #previous = 0;

  constructor({ maxBytes, level }: PageCacheOptions) {
    this.#level = level;
    this.#entries = new LRUCache<string, CachedDocument>({
      maxSize: Math.max(1, maxBytes),
      sizeCalculation: (doc) => doc.body.plain.reduce((sum, part) => sum + part.length, 0) + doc.body.deflated.reduce((sum, part) => sum + part.length, 0),
    });
  }

  get(key: string): CachedDocument | undefined {
    const doc = this.#entries.get(key);
    if (doc) {
      this.#hits += 1;
      doc.servedAt = Date.now();
    } else {
      this.#misses += 1;
    }
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
      doc.servedAt = Date.now();
    }
    return doc;
  }

  /**
   * For a request that missed `key` while another request renders it: the
   * document of its family stored last under another key (the data version
   * or hour just replaced), provided it was served in the last minute. It is
   * what this request would have been sent a moment earlier, and it is sent
   * for no longer than one render takes: a burst of views right after an
   * import (or on the hour) then costs one render's wait, not one each.
   */
  previous(key: DocumentKey): CachedDocument | undefined {
    const latest = this.#latest.get(key.family);
    if (latest === undefined || latest.id === key.id) return undefined;
    const doc = this.#entries.peek(latest.id);
    if (!doc || Date.now() - doc.servedAt > PREVIOUS_SERVED_WITHIN_MS) return undefined;
    this.#misses -= 1;
    this.#hits += 1;
    this.#previous += 1;
    return doc;
  }

  /**
   * Whether the document `previous` would give for `key` shows the same data,
   * rendered in an earlier hour of the clock: sending it while `key` renders
   * is then no older than a view a moment before the hour.
   */
  previousShowsSameData(key: DocumentKey): boolean {
    const latest = this.#latest.peek(key.family);
    return latest !== undefined && latest.id !== key.id && latest.sameData === key.sameData;
  }

  /** Stores a document; `nonce` (if any) is cut out of it so each response can carry its own. */
  set(key: DocumentKey, document: { status: number; contentType: string; text: string }, nonce: string | null): void {
    const segments = nonce ? document.text.split(nonce) : [document.text];
    this.#entries.set(key.id, {
      status: document.status,
      contentType: document.contentType,
      body: compressSegments(segments, this.#level),
      servedAt: Date.now(),
    });
    this.#latest.set(key.family, key);
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

  /** How many documents are being rendered now. */
  rendersUnderWay(): number {
    return this.#rendering.size;
  }

  /** Settles when the render of `key` under way ends; undefined when none is. */
  rendering(key: string): Promise<void> | undefined {
    return this.#rendering.get(key);
  }

  /** `previous`: hits given the document of the data just replaced. */
  stats(): { entries: number; bytes: number; hits: number; misses: number; previous: number } {
    return { entries: this.#entries.size, bytes: this.#entries.calculatedSize, hits: this.#hits, misses: this.#misses, previous: this.#previous };
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
