import { Transform } from "node:stream";
import type { Request, RequestHandler, Response as ExpressResponse } from "express";
import type { Logger } from "pino";
import type { BootState } from "../../shared/config/public-config";
import type { ClientAssets } from "../ssr/assets";
import { DOCUMENT_TAIL, documentHead } from "../ssr/document";
import type { SsrRenderer } from "../ssr/entry";
import { sendCachedDocument, type CachedDocument, type DocumentKey, type PageCache } from "../ssr/page-cache";
import { settleRouteErrors } from "./error-responses";
import { redirectTarget, toFetchRequest } from "./fetch-request";
import type { RequestContext } from "./request-context";
import { clientLeft, isClientGone } from "../runtime/request-scope";
import { RETRY_AFTER_SECONDS } from "./shed";

export interface ResponseCache {
  store: PageCache;
  /**
   * What every cached document depends on besides its URL: the build, which
   * no document outlives, the data its page shows (data version) and the
   * hour of the clock, given the page's path (null: a document of no page,
   * such as a forced error screen).
   */
  scope: (pathname: string | null) => { build: string; data: string; hour: string };
  /**
   * Whether an import is running. While one runs, the first request for a
   * document whose data just changed is sent the document of the data just
   * replaced (PageCache.previous), and renders the new one in the background
   * for the requests after it (see lookUpOrAwaitRender). Once the import
   * ends, a document is never sent older than the data.
   */
  importRunning?: () => boolean;
}

export interface PageHandlerOptions {
  getRenderer: () => Promise<SsrRenderer<RequestContext>>;
  assets: ClientAssets;
  boot: BootState;
  requestContext: (res: ExpressResponse) => RequestContext;
  abortAfterMs: number;
  logger: Logger;
  cache?: ResponseCache;
  /** Vite's dev preamble for <head>, given the request's URL and nonce. */
  devHead?: (url: string, nonce: string) => Promise<string>;
  /** Told how long each render took, from its start to the end of its stream. */
  observeRender?: (seconds: number, outcome: "ok" | "error" | "aborted") => void;
}

const FALLBACK_ERROR_HTML =
  '<!DOCTYPE html><html lang="en-US"><head><meta charset="utf-8"><title>Something went wrong</title></head>' +
  "<body><h1>Something went wrong</h1><p>Please try again later.</p></body></html>";

const HTML = "text/html; charset=utf-8";

/**
 * The key of a page in the cache, or null when it must be rendered for this
 * request alone. A forced error screen (429, 503) does not depend on the URL,
 * so one copy serves every such request. The URL comes last, after parts
 * with a fixed number of separators, so no two keys can run together.
 */
export function cacheKey(req: Request, res: ExpressResponse, cache: ResponseCache | undefined, kind: "page" | "payload"): DocumentKey | null {
  if (!cache) return null;
  const forced = res.locals.forcedError;
  let scope: ReturnType<ResponseCache["scope"]>;
  try {
    scope = cache.scope(forced ? null : req.originalUrl.split("?")[0]!);
  } catch {
    // No data version to key on (the database is gone): render for this request, the error screen included.
    return null;
  }
  const name = forced ? `forced|${forced.status}` : req.originalUrl;
  const prefix = `${kind}|${scope.build}`;
  return { id: `${prefix}|${scope.data}|${scope.hour}|${name}`, family: `${prefix}|${name}`, sameData: `${prefix}|${scope.data}|${name}` };
}

/**
 * The cached document for this request, if any, and its key. A request that
 * cachedDocuments() already missed before admission is looked up again (a
 * burst of one uncached page waits in line while its first request renders
 * it), without counting a second miss.
 */
export function lookUpCached(
  req: Request,
  res: ExpressResponse,
  cache: ResponseCache | undefined,
  kind: "page" | "payload",
): { key: DocumentKey | null; hit: CachedDocument | undefined } {
  const key = cacheKey(req, res, cache, kind);
  if (key === null || !cache) return { key, hit: undefined };
  const hit = res.locals.cacheMissedKey === key.id ? cache.store.getAfterMiss(key.id) : cache.store.get(key.id);
  if (!hit) res.locals.cacheMissedKey = key.id;
  return { key, hit };
}

/**
 * How long a request that finds its document being rendered by another
 * request waits for that render before rendering for itself. A render takes
 * milliseconds, a few hundred at worst; one still under way after a second is
 * most likely held by a client that does not read its answer (the document is
 * stored once written out), and must not hold back everybody else's view.
 */
const RENDER_WAIT_MS = 1_000;

/**
 * Background renders under way at most: beyond them, a request renders its
 * document before its answer, inside admission control like any other.
 */
const MAX_BACKGROUND_RENDERS = 4;

/** A request's cached document, if any; where it must render it, its claim on that render (claimRender). */
interface DocumentLookup {
  key: DocumentKey | null;
  hit: CachedDocument | undefined;
  rendered: (() => void) | null;
  /**
   * Set when `hit` is the document of the data just replaced, sent while an
   * import runs: the request then renders the new one for the cache alone,
   * and must call `rendered` once that render ends, however it ends.
   */
  inBackground: boolean;
}

/**
 * lookUpCached, and when another request is rendering this document, the
 * same document of the data just replaced (PageCache.previous) or else the
 * render's result once it ends: a burst of first views of one page (after an
 * import, at the hour, or when a CVE everybody looks up is published) costs
 * one render instead of one each. A request waits at most once: if the render
 * it waited for stored nothing (a 404, an error, a client that left), it
 * renders for itself.
 *
 * With `claim` (the handlers that render), a miss also claims the render, in
 * the same turn of the event loop as the lookup: the other requests of a
 * burst, worked through in the same slice, then find it claimed and wait.
 *
 * While an import runs, the request that claims the render is given the
 * document of the data just replaced as well, and renders the new one in the
 * background. Renders of first views after a publish took 13–64 ms beside
 * the import's CPU, against 2–3 ms for a cached answer; a page shown a render
 * late while the import is still under way costs its reader nothing
 * (docs/performance.md, "Rendering in the background while an import runs").
 * So does a page of the same data rendered in the hour before: on the hour,
 * every page's first view would otherwise wait for its render (52–77 ms).
 */
export async function lookUpOrAwaitRender(
  req: Request,
  res: ExpressResponse,
  cache: ResponseCache | undefined,
  kind: "page" | "payload",
  claim: boolean,
): Promise<DocumentLookup> {
  let found = lookUpCached(req, res, cache, kind);
  const { key } = found;
  const rendering = found.hit || key === null || !cache || res.locals.awaitedRender ? undefined : cache.store.rendering(key.id);
  if (rendering && key !== null && cache) {
    const previous = cache.store.previous(key);
    if (previous) return { key, hit: previous, rendered: null, inBackground: false };
    res.locals.awaitedRender = true;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([rendering, new Promise<void>((resolve) => (timer = setTimeout(resolve, RENDER_WAIT_MS)))]);
    clearTimeout(timer);
    found = lookUpCached(req, res, cache, kind);
  }
  if (!claim || found.hit || found.key === null || !cache) return { ...found, rendered: null, inBackground: false };
  return claimRender(res, cache, found.key);
}

/**
 * Claims the render of `key` for this response, so that other requests for
 * the same document wait for it (or are given its previous document). The
 * claim ends when `rendered` is called, or when the response closes if the
 * render is the response's own; `rendered` is null when another request
 * renders the document already.
 */
function claimRender(res: ExpressResponse, cache: ResponseCache, key: DocumentKey): DocumentLookup {
  const backgroundAllowed =
    cache.store.rendersUnderWay() < MAX_BACKGROUND_RENDERS && (cache.store.previousShowsSameData(key) || (cache.importRunning?.() ?? false));
  const end = cache.store.startRender(key.id);
  if (!end) return { key, hit: undefined, rendered: null, inBackground: false };
  const previous = backgroundAllowed ? cache.store.previous(key) : undefined;
  if (previous) return { key, hit: previous, rendered: end, inBackground: true };
  if (res.closed) end();
  else res.once("close", end);
  return { key, hit: undefined, rendered: end, inBackground: false };
}

/**
 * Streams a server-rendered page: head first, then React's stream, then the
 * tail. A page that rendered completely with status 200 (or a forced error
 * screen) is kept in the cache, with this response's nonce cut out of it, so
 * the next request for it is served without running a loader or React.
 *
 * A request sent the document of the data just replaced (lookUpOrAwaitRender)
 * renders its page all the same, into the cache alone.
 */
export function pageHandler(options: PageHandlerOptions): RequestHandler {
  const { logger } = options;
  return async (req, res, next) => {
    const nonce = res.locals.cspNonce;
    const { key, hit, rendered, inBackground } = await lookUpOrAwaitRender(req, res, options.cache, "page", true);
    if (hit) {
      sendCachedDocument(req, res, hit, nonce);
      if (!inBackground) return;
    }
    // The client's response; null for a render in the background, whose answer was already sent.
    const client = inBackground ? null : res;
    try {
      const renderer = await options.getRenderer();
      const result = await renderer.query(toFetchRequest(req, client), options.requestContext(res));
      if (result instanceof Response) {
        client?.redirect(result.status, redirectTarget(result));
        rendered?.();
        return;
      }
      const context = result;
      if (settleRouteErrors(context, logger, req.originalUrl) === "client-gone") {
        logger.debug({ url: req.originalUrl }, "client went away before its page was rendered");
        rendered?.();
        return;
      }
      if (context.statusCode === 503) client?.set("Retry-After", String(RETRY_AFTER_SECONDS));
      const pageModules = renderer.pageModules(context);
      const head = documentHead({
        meta: renderer.meta(context, options.boot),
        boot: options.boot,
        nonce,
        stylesheets: options.assets.stylesheets,
        modulePreloads: options.assets.preloadsFor(pageModules),
        devHead: options.devHead ? await options.devHead(req.originalUrl, nonce) : undefined,
      });

      const forced = res.locals.forcedError;
      const cacheable = key !== null && (forced ? context.statusCode === forced.status : context.statusCode === 200);
      const written: string[] = [head];
      let renderFailed = false;
      // Why the render stopped early: our own time limit (worth an error line) or a client that left (not).
      let aborted: "timeout" | "client-gone" | null = null;
      const renderStarted = process.hrtime.bigint();
      const body = new Transform({
        transform: (chunk: Buffer | string, _encoding, done) => {
          if (cacheable) written.push(chunk.toString());
          done(null, chunk);
        },
        flush: (done) => {
          options.observeRender?.(Number(process.hrtime.bigint() - renderStarted) / 1e9, aborted !== null ? "aborted" : renderFailed ? "error" : "ok");
          if (cacheable && !renderFailed && aborted === null) {
            written.push(DOCUMENT_TAIL);
            options.cache?.store.set(key, { status: context.statusCode, contentType: HTML, text: written.join("") }, nonce);
          }
          rendered?.();
          done(null, DOCUMENT_TAIL);
        },
      });
      // React flushes its destination after each chunk; pass that on to compression.
      Object.assign(body, { flush: () => (client as (ExpressResponse & { flush?: () => void }) | null)?.flush?.() });

      const stream = renderer.render(context, {
        boot: options.boot,
        nonce,
        bootstrapModules: [options.assets.entry],
        onShellReady() {
          if (client) {
            client.status(renderFailed ? 500 : context.statusCode);
            client.set({ "Content-Type": HTML, "Cache-Control": "private, no-cache", Vary: "Accept-Encoding" });
            client.write(head);
            body.pipe(client);
          } else {
            // Nobody reads the stream: let it flow, so that the document is written out and stored.
            body.resume();
          }
          stream.pipe(body);
        },
        onShellError(error) {
          logger.error({ err: error, url: req.originalUrl }, "server render failed");
          rendered?.();
          if (client && !client.headersSent) client.status(500).type("html").send(FALLBACK_ERROR_HTML);
        },
        onError(error) {
          if (aborted === "client-gone") return;
          renderFailed = true;
          logger.error({ err: error, url: req.originalUrl }, "error while rendering");
        },
      });
      const abortTimer = setTimeout(() => {
        aborted = "timeout";
        stream.abort();
      }, options.abortAfterMs);
      body.once("end", () => clearTimeout(abortTimer));
      client?.on("close", () => {
        clearTimeout(abortTimer);
        if (client.writableFinished) return;
        // The client left mid-page: stop rendering for nobody, and say so once.
        aborted = "client-gone";
        stream.abort();
        logger.info({ url: req.originalUrl }, "render aborted: the client went away");
      });
    } catch (error) {
      rendered?.();
      if (isClientGone(error) || clientLeft(res)) {
        logger.debug({ url: req.originalUrl }, "client went away before its page was rendered");
        return;
      }
      if (client) next(error);
      else logger.error({ err: error, url: req.originalUrl }, "a page's render in the background failed");
    }
  };
}

declare module "express-serve-static-core" {
  interface Locals {
    /** The cache key this request already missed, so that a later look-up does not count a second miss. */
    cacheMissedKey?: string;
    /** Set once this request has waited for another request's render of its document. */
    awaitedRender?: boolean;
  }
}
