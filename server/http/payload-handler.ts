import type { RequestHandler, Response as ExpressResponse } from "express";
import type { Logger } from "pino";
import { isRouteErrorResponse } from "react-router";
import type { BuildInfo } from "../../shared/config/public-config";
import { PAYLOAD_FILE } from "../../shared/constants";
import type { PagePayload } from "../../shared/routes/page-payload";
import type { SsrRenderer } from "../ssr/entry";
import { sendCachedDocument } from "../ssr/page-cache";
import { settleRouteErrors, INTERNAL_ERROR_MESSAGE } from "./error-responses";
import { redirectTarget, toFetchRequest } from "./fetch-request";
import { lookUpOrAwaitRender, type ResponseCache } from "./page-documents";
import type { RequestContext } from "./request-context";
import { clientLeft, isClientGone } from "../runtime/request-scope";
import { RETRY_AFTER_SECONDS } from "./shed";

export interface PayloadHandlerOptions {
  getRenderer: () => Promise<SsrRenderer<RequestContext>>;
  build: BuildInfo;
  requestContext: (res: ExpressResponse) => RequestContext;
  logger: Logger;
  cache?: ResponseCache;
}

/** How a payload URL ends: `/<page path>/_payload.json`. */
export const PAYLOAD_SUFFIX = `/${PAYLOAD_FILE}`;
const SUFFIX = PAYLOAD_SUFFIX;
const JSON_TYPE = "application/json; charset=utf-8";

function errorBody(error: unknown): { statusCode: number; message: string } {
  if (isRouteErrorResponse(error)) {
    const message = (error.data as { message?: unknown } | null)?.message;
    return { statusCode: error.status, message: typeof message === "string" ? message : error.statusText };
  }
  return { statusCode: 500, message: INTERNAL_ERROR_MESSAGE };
}

/**
 * `GET /<page path>/_payload.json?<buildId>&<page query>`: the page's loader
 * data as JSON, from the same loaders that server rendering uses, so the
 * browser's navigations and the first render share one data path. Payloads
 * are cached like pages.
 */
export function payloadHandler(options: PayloadHandlerOptions): RequestHandler {
  return async (req, res, next) => {
    if (!req.path.endsWith(SUFFIX)) return next();
    const { key, hit, rendered, inBackground } = await lookUpOrAwaitRender(req, res, options.cache, "payload", true);
    if (hit) {
      sendCachedDocument(req, res, hit, "");
      if (!inBackground) return;
    }
    // The client's response; none for a payload loaded in the background, its answer already sent (page-documents.ts).
    const client = inBackground ? null : res;
    try {
      const pagePath = req.path.slice(0, -SUFFIX.length) || "/";
      const query = new URLSearchParams(req.originalUrl.split("?")[1] ?? "");
      query.delete(options.build.id);
      const search = query.size > 0 ? `?${query}` : "";

      const renderer = await options.getRenderer();
      const result = await renderer.query(toFetchRequest(req, client, `${pagePath}${search}`), options.requestContext(res));

      let status = 200;
      let payload: PagePayload;
      if (result instanceof Response) {
        payload = { kind: "redirect", location: redirectTarget(result), status: result.status };
      } else if (result.errors) {
        if (settleRouteErrors(result, options.logger, req.originalUrl) === "client-gone") {
          options.logger.debug({ url: req.originalUrl }, "client went away before its payload was loaded");
          rendered?.();
          return;
        }
        if (result.statusCode === 503) client?.set("Retry-After", String(RETRY_AFTER_SECONDS));
        const error = errorBody(Object.values(result.errors)[0]);
        status = error.statusCode;
        payload = { kind: "error", error };
      } else {
        const leaf = result.matches.at(-1);
        status = result.statusCode;
        payload = { kind: "data", data: leaf ? (result.loaderData[leaf.route.id] ?? null) : null };
      }
      const text = JSON.stringify(payload);
      const forced = res.locals.forcedError;
      if (key !== null && (forced ? status === forced.status : status === 200 && payload.kind === "data")) {
        options.cache?.store.set(key, { status, contentType: JSON_TYPE, text }, null);
      }
      rendered?.();
      client?.status(status).set({ "Content-Type": JSON_TYPE, "Cache-Control": "private, no-cache", Vary: "Accept-Encoding" }).send(text);
    } catch (error) {
      rendered?.();
      if (isClientGone(error) || clientLeft(res)) {
        options.logger.debug({ url: req.originalUrl }, "client went away before its payload was loaded");
        return;
      }
      if (client) next(error);
      else options.logger.error({ err: error, url: req.originalUrl }, "a payload's load in the background failed");
    }
  };
}
