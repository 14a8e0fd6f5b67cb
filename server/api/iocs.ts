import express, { Router, type Request } from "express";
import type { Kysely } from "kysely";
import type { Logger } from "pino";
import { parseIndicator } from "../../shared/ioc/detect";
import { defang } from "../../shared/ioc/defang";
import { canonicalIndicatorPath } from "../../shared/ioc/indicator-path";
import { blocklistParamsSchema, iocListParamsSchema, iocListSearch, type IocListParams } from "../../shared/ioc-radar/list-params";
import type { IocListRow } from "../../shared/ioc-radar/list-types";
import { LOOKUP_MAX_BYTES, LOOKUP_MAX_INDICATORS } from "../../shared/ioc-radar/lookup-types";
import { csvRow } from "../../shared/util/csv";
import type { Database } from "../db/schema";
import type { Store } from "express-rate-limit";
import { apiRateLimit } from "../http/rate-limit";
import { asIndicator, INDICATOR_COLUMNS, orderedIndicators, sightingsOf, toListRows, type IndicatorRow } from "../ioc/list";
import { TooManyIndicatorsError } from "../ioc/lookup";
import type { IocService } from "../ioc/service";
import { stixId, stixObjectsFor, type StixIndicatorInput } from "../ioc/stix-export";
import { verifyBotCheck, type BotCheckConfig } from "../security/bot-check";
import { renderAtom } from "../syndication/atom";
import { siteOrigin } from "./site-url";
import { streamText } from "./streaming";
import { sendBadRequest, validQuery } from "./validation";

/** Exports stop after this many rows; narrow the filter for more. */
export const IOC_EXPORT_MAX_ROWS = 10_000;
export const IOC_BLOCKLIST_MAX_ROWS = 100_000;
export const IOC_FEED_MAX_ENTRIES = 100;
const EXPORT_BATCH = 500;
const BLOCKLIST_BATCH = 2_000;
export const BOT_CHECK_ACTION = "bulk_lookup";

const CSV_HEADER = [
  "value",
  "type",
  "threat_type",
  "malware_family",
  "tags",
  "sources",
  "first_seen",
  "last_seen",
  "confidence",
  "score",
  "verdict",
  "benign_lists",
];

function csvValues(row: IocListRow) {
  return [
    row.value,
    row.type,
    row.threatType,
    row.malwareFamily,
    row.tags.join(" "),
    row.sources.join(" "),
    row.firstSeen,
    row.lastSeen,
    row.confidence,
    row.score,
    row.verdict,
    row.benignLists.join(" "),
  ];
}

export interface IocRoutesOptions {
  db: Kysely<Database>;
  logger: Logger;
  iocs: IocService;
  now: () => Date;
  siteUrl?: string;
  /** Set when the bot check is configured (site key and secret). */
  botCheck?: BotCheckConfig;
  rateLimit: { windowMs: number; lookupMax: number; store?: Store };
}

/** `/api/v1/iocs`: the list with the page's filters, statistics, one indicator, bulk lookup, exports and an Atom feed. */
export function iocRoutes({ db, iocs, now, logger, siteUrl, botCheck, rateLimit }: IocRoutesOptions): Router {
  const router = Router();

  /** Pages of the filtered rows with their scores, without holding the connection between pages. */
  async function* exportBatches(params: IocListParams, clock: Date): AsyncGenerator<IocListRow[]> {
    const [matcher, listed, context] = await Promise.all([iocs.matcher(), iocs.completeLists(), iocs.filterContext(params)]);
    for (let offset = 0; offset < IOC_EXPORT_MAX_ROWS; offset += EXPORT_BATCH) {
      const rows = await orderedIndicators(db, params, clock, context)
        .select(INDICATOR_COLUMNS)
        .limit(Math.min(EXPORT_BATCH, IOC_EXPORT_MAX_ROWS - offset))
        .offset(offset)
        .execute();
      if (rows.length === 0) return;
      yield toListRows(
        db,
        rows.map((row): IndicatorRow => ({ ...row, id: Number(row.id) })),
        matcher,
        listed,
        clock,
      );
      if (rows.length < EXPORT_BATCH) return;
    }
  }

  router.get("/iocs", async (req, res) => {
    const params = validQuery(iocListParamsSchema, req.originalUrl, res);
    if (params) res.json(await iocs.list(params, now()));
  });

  router.get("/iocs/stats", async (req, res) => {
    const params = validQuery(iocListParamsSchema, req.originalUrl, res);
    if (params) res.json(await iocs.stats(params, now()));
  });

  router.get("/iocs/export.csv", async (req, res) => {
    const params = validQuery(iocListParamsSchema, req.originalUrl, res);
    if (!params) return;
    const clock = now();
    res.attachment("iocs.csv").type("text/csv; charset=utf-8");
    await streamText(req, res, logger, async function* () {
      yield csvRow(CSV_HEADER);
      for await (const rows of exportBatches(params, clock)) yield rows.map((row) => csvRow(csvValues(row))).join("");
    });
  });

  router.get("/iocs/export.json", async (req, res) => {
    const params = validQuery(iocListParamsSchema, req.originalUrl, res);
    if (!params) return;
    const clock = now();
    res.attachment("iocs.json").type("application/json");
    await streamText(req, res, logger, async function* () {
      yield `{"generatedAt":${JSON.stringify(clock.toISOString())},"maxRows":${IOC_EXPORT_MAX_ROWS},"iocs":[`;
      let first = true;
      for await (const rows of exportBatches(params, clock)) {
        for (const row of rows) {
          yield `${first ? "" : ","}${JSON.stringify(row)}`;
          first = false;
        }
      }
      yield "]}";
    });
  });

  router.get("/iocs/export.stix.json", async (req, res) => {
    const params = validQuery(iocListParamsSchema, req.originalUrl, res);
    if (!params) return;
    const clock = now();
    const generated = clock.toISOString();
    res.attachment("iocs.stix.json").type("application/stix+json;version=2.1");
    await streamText(req, res, logger, async function* () {
      yield `{"type":"bundle","id":${JSON.stringify(stixId("bundle", `${iocListSearch(params)}|${generated}`))},"objects":[`;
      const emitted = new Set<string>();
      let first = true;
      for await (const rows of exportBatches(params, clock)) {
        const sightings = await sightingsOf(
          db,
          rows.map((row) => row.id),
        );
        for (const row of rows) {
          const input: StixIndicatorInput = {
            ...row,
            sightings: (sightings.get(row.id) ?? []).map((s) => ({
              source: s.source,
              variant: s.variant,
              firstSeen: s.firstSeen,
              lastSeen: s.lastSeen,
              reference: s.reference,
            })),
          };
          for (const object of stixObjectsFor(input, generated, emitted)) {
            yield `${first ? "" : ","}${JSON.stringify(object)}`;
            first = false;
          }
        }
      }
      yield "]}";
    });
  });

  router.get("/iocs/blocklist.txt", async (req, res) => {
    const params = validQuery(blocklistParamsSchema, req.originalUrl, res);
    if (!params) return;
    const clock = now();
    const listParams: IocListParams = { ...params, type: [params.type], sort: "value", dir: "asc" };
    const [matcher, context] = await Promise.all([iocs.matcher(), iocs.filterContext(listParams)]);
    res.type("text/plain; charset=utf-8");
    await streamText(req, res, logger, async function* () {
      // By value, in batches that start after the last value sent: each batch is one short read.
      let after: string | null = null;
      for (let sent = 0; sent < IOC_BLOCKLIST_MAX_ROWS;) {
        const rows = await orderedIndicators(db, listParams, clock, context)
          .$if(after !== null, (qb) => qb.where("indicators.value", ">", after ?? ""))
          .select(["indicators.type", "indicators.value"])
          .limit(Math.min(BLOCKLIST_BATCH, IOC_BLOCKLIST_MAX_ROWS - sent))
          .execute();
        const lines = rows.filter((row) => matcher.match(asIndicator(row)).length === 0).map((row) => `${row.value}\n`);
        if (lines.length > 0) yield lines.join("");
        sent += rows.length;
        after = rows.at(-1)?.value ?? null;
        if (rows.length < BLOCKLIST_BATCH) return;
      }
    });
  });

  router.get("/iocs/feed.atom", async (req, res) => {
    const params = validQuery(iocListParamsSchema, req.originalUrl, res);
    if (!params) return;
    const feedParams: IocListParams = { ...params, page: 1, per_page: Math.min(params.per_page ?? 50, IOC_FEED_MAX_ENTRIES) };
    const clock = now();
    const { rows } = await iocs.list(feedParams, clock);
    const origin = siteOrigin(req, siteUrl);
    const search = iocListSearch(params);
    const updated =
      rows
        .map((row) => row.lastSeen ?? row.firstSeen ?? "")
        .sort()
        .at(-1) || clock.toISOString();
    res.type("application/atom+xml; charset=utf-8").send(
      renderAtom({
        id: `${origin}/ioc-radar${search}`,
        title: `Threat Radar: indicators${search ? ` (${decodeURIComponent(search.slice(1))})` : ""}`,
        selfLink: `${origin}/api/v1/iocs/feed.atom${search}`,
        alternateLink: `${origin}/ioc-radar${search}`,
        updated,
        entries: rows.map((row) => {
          const link = `${origin}${canonicalIndicatorPath(row.value) ?? "/ioc-radar"}`;
          return {
            id: link,
            title: `${row.type} ${defang(asIndicator(row))}`.slice(0, 300),
            link,
            updated: row.lastSeen ?? row.firstSeen ?? updated,
            published: row.firstSeen,
            summary: [
              row.threatType,
              row.malwareFamily ? `malware ${row.malwareFamily}` : null,
              `seen by ${row.sources.join(", ") || "no feed"}`,
              `score ${row.score}`,
              row.benignLists.length ? `on benign lists: ${row.benignLists.join(", ")}` : null,
            ]
              .filter(Boolean)
              .join(" · "),
            categories: [row.type, row.malwareFamily, ...row.tags].filter((v): v is string => Boolean(v)),
          };
        }),
      }),
    );
  });

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

  router.get("/iocs/:value", async (req, res) => {
    const read = parseIndicator(req.params.value);
    if (!read) {
      sendBadRequest(res, [{ param: "value", message: "is not an indicator (IP, CIDR, domain, URL, e-mail address or hash)" }]);
      return;
    }
    res.json(await iocs.detail(read, now()));
  });

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
