import express, { Router, type Request } from "express";
import type { Store } from "express-rate-limit";
import { LOOKUP_MAX_BYTES, LOOKUP_MAX_INDICATORS } from "../../shared/ioc-radar/lookup-types";
import { apiRateLimit } from "../http/rate-limit";
import { TooManyIndicatorsError } from "../ioc/lookup";
import type { IocService } from "../ioc/service";
import { verifyBotCheck, type BotCheckConfig } from "../security/bot-check-verification";
import { sendBadRequest } from "./validation";

export const BOT_CHECK_ACTION = "bulk_lookup";

export interface IocLookupOptions {
  iocs: IocService;
  now: () => Date;
  /** Set when the bot check is configured (site key and secret). */
  botCheck?: BotCheckConfig;
  rateLimit: { windowMs: number; lookupMax: number; store?: Store };
}

/** `POST /iocs/lookup`: every indicator in a pasted text, under its own rate limit and the bot check when one is configured. */
export function iocLookupRoute({ iocs, now, botCheck, rateLimit }: IocLookupOptions): Router {
  const router = Router();

  router.post(
    "/iocs/lookup",
    apiRateLimit({ windowMs: rateLimit.windowMs, limit: rateLimit.lookupMax, store: rateLimit.store }),
    express.text({ type: "text/plain", limit: LOOKUP_MAX_BYTES }),
    async (req, res) => {
      const { text, token } = lookupInput(req);
      if (text === null) {
        sendBadRequest(res, [{ param: "text", message: 'is required: send JSON { "text": "…" } or a text/plain body' }]);
        return;
      }
      if (Buffer.byteLength(text, "utf8") > LOOKUP_MAX_BYTES) {
        res.status(413).json({ error: { statusCode: 413, message: `text is larger than ${LOOKUP_MAX_BYTES} bytes` } });
        return;
      }
      if (botCheck) {
        if (!token) {
          res.status(403).json({ error: { statusCode: 403, message: 'A bot check token is required (JSON field "token" or header X-Bot-Check-Token)' } });
          return;
        }
        const outcome = await verifyBotCheck(botCheck, token, BOT_CHECK_ACTION, req.ip);
        if (!outcome.ok) {
          res.status(403).json({ error: { statusCode: 403, message: `Bot check failed: ${outcome.reason}` } });
          return;
        }
      }
      try {
        res.json(await iocs.lookup(text, now()));
      } catch (error) {
        if (!(error instanceof TooManyIndicatorsError)) throw error;
        res.status(413).json({ error: { statusCode: 413, message: `text holds more than ${LOOKUP_MAX_INDICATORS} indicators; split it` } });
      }
    },
  );

  return router;
}

function lookupInput(req: Request): { text: string | null; token: string | null } {
  const header = req.get("x-bot-check-token") ?? null;
  if (typeof req.body === "string") return { text: req.body, token: header };
  const body: unknown = req.body;
  if (body && typeof body === "object" && !Array.isArray(body)) {
    const { text, token } = body as { text?: unknown; token?: unknown };
    return { text: typeof text === "string" ? text : null, token: typeof token === "string" && token ? token : header };
  }
  return { text: null, token: header };
}
