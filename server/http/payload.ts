import type { RequestHandler, Response as ExpressResponse } from "express";
import type { Logger } from "pino";
import { isRouteErrorResponse } from "react-router";
import type { BuildInfo } from "../../shared/config/public-config";
import { PAYLOAD_FILE } from "../../shared/constants";
import type { PagePayload } from "../../shared/routes/payload";
import type { SsrRenderer } from "../ssr/entry";
import { hideUnexpectedRouteErrors, INTERNAL_ERROR_MESSAGE } from "./errors";
import { redirectTarget, toFetchRequest } from "./fetch-request";
import type { RequestContext } from "./request-context";

export interface PayloadHandlerOptions {
  getRenderer: () => Promise<SsrRenderer>;
  build: BuildInfo;
  requestContext: (res: ExpressResponse) => RequestContext;
  logger: Logger;
}

const SUFFIX = `/${PAYLOAD_FILE}`;

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
 * browser's navigations and the first render share one data path.
 */
export function payloadHandler(options: PayloadHandlerOptions): RequestHandler {
  return async (req, res, next) => {
    if (!req.path.endsWith(SUFFIX)) return next();
    try {
      const pagePath = req.path.slice(0, -SUFFIX.length) || "/";
      const query = new URLSearchParams(req.originalUrl.split("?")[1] ?? "");
      query.delete(options.build.id);
      const search = query.size > 0 ? `?${query}` : "";

      const renderer = await options.getRenderer();
      const result = await renderer.query(toFetchRequest(req, res, `${pagePath}${search}`), options.requestContext(res));
      res.set("Cache-Control", "private, no-cache");

      let payload: PagePayload;
      if (result instanceof Response) {
        payload = { kind: "redirect", location: redirectTarget(result), status: result.status };
      } else if (result.errors) {
        hideUnexpectedRouteErrors(result, options.logger, req.originalUrl);
        const error = errorBody(Object.values(result.errors)[0]);
        res.status(error.statusCode);
        payload = { kind: "error", error };
      } else {
        const leaf = result.matches.at(-1);
        payload = { kind: "data", data: leaf ? result.loaderData[leaf.route.id] ?? null : null };
      }
      res.json(payload);
    } catch (error) {
      next(error);
    }
  };
}
