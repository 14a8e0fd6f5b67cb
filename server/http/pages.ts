import { Transform } from "node:stream";
import type { RequestHandler, Response as ExpressResponse } from "express";
import type { Logger } from "pino";
import type { BootState } from "../../shared/config/public-config";
import type { ClientAssets } from "../ssr/assets";
import { DOCUMENT_TAIL, documentHead } from "../ssr/document";
import type { SsrRenderer } from "../ssr/entry";
import { hideUnexpectedRouteErrors } from "./errors";
import { redirectTarget, toFetchRequest } from "./fetch-request";
import type { RequestContext } from "./request-context";

export interface PageHandlerOptions {
  getRenderer: () => Promise<SsrRenderer>;
  assets: ClientAssets;
  boot: BootState;
  requestContext: (res: ExpressResponse) => RequestContext;
  abortAfterMs: number;
  logger: Logger;
  /** Vite's dev preamble for <head>, given the request's URL and nonce. */
  devHead?: (url: string, nonce: string) => Promise<string>;
}

const FALLBACK_ERROR_HTML =
  '<!DOCTYPE html><html lang="en-US"><head><meta charset="utf-8"><title>Something went wrong</title></head>' +
  "<body><h1>Something went wrong</h1><p>Please try again later.</p></body></html>";

/** Streams a server-rendered page: head first, then React's stream, then the tail. */
export function pageHandler(options: PageHandlerOptions): RequestHandler {
  return async (req, res, next) => {
    try {
      const renderer = await options.getRenderer();
      const result = await renderer.query(toFetchRequest(req, res), options.requestContext(res));
      if (result instanceof Response) {
        res.redirect(result.status, redirectTarget(result));
        return;
      }
      const context = result;
      hideUnexpectedRouteErrors(context, options.logger, req.originalUrl);
      const nonce = res.locals.cspNonce;
      const pageIds = renderer.pageIds(context);
      const head = documentHead({
        meta: renderer.meta(context, options.boot),
        boot: options.boot,
        nonce,
        stylesheets: options.assets.stylesheets,
        modulePreloads: options.assets.preloadsFor(pageIds),
        devHead: options.devHead ? await options.devHead(req.originalUrl, nonce) : undefined,
      });

      let renderFailed = false;
      const body = new Transform({
        transform: (chunk, _encoding, done) => done(null, chunk),
        flush: (done) => done(null, DOCUMENT_TAIL),
      });
      // React flushes its destination after each chunk; pass that on to compression.
      Object.assign(body, { flush: () => (res as ExpressResponse & { flush?: () => void }).flush?.() });

      const stream = renderer.render(context, {
        boot: options.boot,
        nonce,
        bootstrapModules: [options.assets.entry],
        onShellReady() {
          res.status(renderFailed ? 500 : context.statusCode);
          res.set({ "Content-Type": "text/html; charset=utf-8", "Cache-Control": "private, no-cache" });
          res.write(head);
          body.pipe(res);
          stream.pipe(body);
        },
        onShellError(error) {
          options.logger.error({ err: error, url: req.originalUrl }, "server render failed");
          if (!res.headersSent) res.status(500).type("html").send(FALLBACK_ERROR_HTML);
        },
        onError(error) {
          renderFailed = true;
          options.logger.error({ err: error, url: req.originalUrl }, "error while rendering");
        },
      });
      const abortTimer = setTimeout(() => stream.abort(), options.abortAfterMs);
      res.on("close", () => clearTimeout(abortTimer));
    } catch (error) {
      next(error);
    }
  };
}
