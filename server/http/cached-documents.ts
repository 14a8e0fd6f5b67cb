import type { RequestHandler } from "express";
import { sendCachedDocument } from "../ssr/page-cache";
import { lookUpOrAwaitRender, type ResponseCache } from "./page-documents";
import { PAYLOAD_SUFFIX } from "./payload-handler";

/**
 * Serves a page or payload that is already in the cache of rendered
 * documents, before admission control: a hit costs a lookup and a copy, so
 * it never waits in line behind renders that need the database, and a burst
 * of views of one cached page is served at the speed of the network stack.
 * A document another request is rendering is waited for here too, outside
 * the line. A miss carries on to admission and the handlers, which look again
 * once it is admitted (without counting a second miss).
 */
export function cachedDocuments(cache: ResponseCache): RequestHandler {
  return async (req, res, next) => {
    if (req.method !== "GET" && req.method !== "HEAD") return next();
    const kind = req.path.endsWith(PAYLOAD_SUFFIX) ? "payload" : "page";
    // Rendering is the handlers' part, once the request is admitted: no claim here.
    const { hit } = await lookUpOrAwaitRender(req, res, cache, kind, false);
    if (!hit) return next();
    // Payloads carry no nonce; pages get this response's own.
    sendCachedDocument(req, res, hit, kind === "page" ? res.locals.cspNonce : "");
  };
}
