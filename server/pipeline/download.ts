import { createWriteStream } from "node:fs";
import { Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ReadableStream as WebReadableStream } from "node:stream/web";
import { ofetch } from "ofetch";
import { egressFetch } from "../runtime/egress";

export interface Validators {
  etag: string | null;
  lastModified: string | null;
}

export type DownloadResult = { notModified: true } | { notModified: false; bytes: number; validators: Validators; lastModified: string | null };

export interface DownloadOptions {
  /** Sent as If-None-Match / If-Modified-Since; a 304 answer means unchanged. */
  validators?: Validators | null;
  headers?: Record<string, string>;
  signal?: AbortSignal;
  onBytes?: (bytes: number) => void;
  /** Total size when the server announces it. */
  onLength?: (bytes: number) => void;
  /** Attempts after the first one for network errors and 408/425/429/5xx answers. */
  retries?: number;
  /** First back-off delay; doubles with every attempt. */
  retryDelayMs?: number;
}

/** ofetch over the egress fetch, so downloads honour HTTPS_PROXY, HTTP_PROXY and NO_PROXY. */
const egress = ofetch.create({}, { fetch: egressFetch });

const USER_AGENT = "threat-radar/0.1 (self-hosted security-intelligence importer)";

export class TruncatedDownloadError extends Error {
  override name = "TruncatedDownloadError";
}

/**
 * Downloads `url` to `destination` with ofetch's retries. The body is written
 * to disk before anything parses it, so a connection that breaks half-way
 * fails the import before the database is touched; a body shorter than its
 * Content-Length is an error even when the socket closed cleanly.
 */
export async function downloadToFile(url: string, destination: string, options: DownloadOptions = {}): Promise<DownloadResult> {
  const headers: Record<string, string> = { "user-agent": USER_AGENT, ...options.headers };
  if (options.validators?.etag) headers["if-none-match"] = options.validators.etag;
  if (options.validators?.lastModified) headers["if-modified-since"] = options.validators.lastModified;
  const baseDelay = options.retryDelayMs ?? 1_000;
  let attempt = 0;

  const response = await egress.raw(url, {
    headers,
    signal: options.signal,
    responseType: "stream",
    retry: options.retries ?? 3,
    retryDelay: () => baseDelay * 2 ** attempt++,
  });
  if (response.status === 304) return { notModified: true };
  const body = response._data as WebReadableStream<Uint8Array> | undefined;
  if (!body) throw new Error(`${url}: HTTP ${response.status} without a body`);

  // fetch already undid any Content-Encoding, so Content-Length only
  // describes the body we receive when there was none.
  const length = response.headers.get("content-encoding") ? null : response.headers.get("content-length");
  const declared = length !== null && /^\d+$/.test(length) ? Number(length) : null;
  if (declared !== null) options.onLength?.(declared);
  let bytes = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      bytes += chunk.length;
      options.onBytes?.(chunk.length);
      done(null, chunk);
    },
  });
  await pipeline(Readable.fromWeb(body, { signal: options.signal }), counter, createWriteStream(destination));
  if (declared !== null && bytes !== declared) {
    throw new TruncatedDownloadError(`${url}: received ${bytes} of ${declared} bytes`);
  }
  const etag = response.headers.get("etag");
  const lastModified = response.headers.get("last-modified");
  return { notModified: false, bytes, validators: { etag, lastModified }, lastModified };
}

export function isUrl(location: string): boolean {
  return /^https?:\/\//i.test(location);
}
