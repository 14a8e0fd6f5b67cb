import { Router, type RequestHandler } from "express";
import type { Kysely } from "kysely";
import type { Logger } from "pino";
import { defang } from "../../shared/ioc/defang";
import { canonicalIndicatorPath } from "../../shared/ioc/indicator-path";
import { blocklistParamsSchema, iocListParamsSchema, iocListSearch, type IocListParams } from "../../shared/ioc-radar/list-params";
import type { IocListRow } from "../../shared/ioc-radar/list-types";
import { csvRow } from "../../shared/util/csv";
import type { Database } from "../db/schema";
import { asIndicator, INDICATOR_COLUMNS, orderedIndicators, sightingsOf, toListRows, type IndicatorRow } from "../ioc/list";
import type { IocService } from "../ioc/service";
import { stixId, stixObjectsFor, type StixIndicatorInput } from "../ioc/stix-export";
import { renderAtom } from "../syndication/atom";
import { siteOrigin } from "./site-url";
import { jsonArrayChunks, slices, streamText } from "./streaming";
import { validQuery } from "./validation";

/** Exports stop after this many rows; narrow the filter for more. */
export const IOC_EXPORT_MAX_ROWS = 10_000;
export const IOC_BLOCKLIST_MAX_ROWS = 100_000;
export const IOC_FEED_MAX_ENTRIES = 100;
const EXPORT_BATCH = 500;
const BLOCKLIST_BATCH = 2_000;

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

export interface IocExportOptions {
  db: Kysely<Database>;
  logger: Logger;
  iocs: IocService;
  now: () => Date;
  siteUrl?: string;
}

/** The filtered indicators as CSV, JSON, STIX 2.1, a plain blocklist and an Atom feed, each streamed or bounded. */
export function iocExportRoutes(options: IocExportOptions): Router {
  return Router()
    .get("/iocs/export.csv", csvExport(options))
    .get("/iocs/export.json", jsonExport(options))
    .get("/iocs/export.stix.json", stixExport(options))
    .get("/iocs/blocklist.txt", blocklist(options))
    .get("/iocs/feed.atom", atomFeed(options));
}

/** Pages of the filtered rows with their scores, without holding the connection between pages. */
async function* exportBatches({ db, iocs }: IocExportOptions, params: IocListParams, clock: Date): AsyncGenerator<IocListRow[]> {
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

/** The filtered indicators as CSV, one row per indicator. */
function csvExport(options: IocExportOptions): RequestHandler {
  const { now, logger } = options;
  return async (req, res) => {
    const params = validQuery(iocListParamsSchema, req.originalUrl, res);
    if (!params) return;
    const clock = now();
    res.attachment("iocs.csv").type("text/csv; charset=utf-8");
    await streamText(req, res, logger, async function* () {
      yield csvRow(CSV_HEADER);
      for await (const rows of exportBatches(options, params, clock)) {
        for (const chunk of slices(rows)) yield chunk.map((row) => csvRow(csvValues(row))).join("");
      }
    });
  };
}

/** The filtered indicators as one JSON document, streamed row by row. */
function jsonExport(options: IocExportOptions): RequestHandler {
  const { now, logger } = options;
  return async (req, res) => {
    const params = validQuery(iocListParamsSchema, req.originalUrl, res);
    if (!params) return;
    const clock = now();
    res.attachment("iocs.json").type("application/json");
    await streamText(req, res, logger, async function* () {
      yield `{"generatedAt":${JSON.stringify(clock.toISOString())},"maxRows":${IOC_EXPORT_MAX_ROWS},"iocs":[`;
      const items = jsonArrayChunks();
      for await (const rows of exportBatches(options, params, clock)) {
        for (const chunk of slices(rows)) yield items(chunk.map((row) => JSON.stringify(row)));
      }
      yield "]}";
    });
  };
}

/** The filtered indicators as a STIX 2.1 bundle, with their sightings per feed. */
function stixExport(options: IocExportOptions): RequestHandler {
  const { db, now, logger } = options;
  return async (req, res) => {
    const params = validQuery(iocListParamsSchema, req.originalUrl, res);
    if (!params) return;
    const clock = now();
    const generated = clock.toISOString();
    res.attachment("iocs.stix.json").type("application/stix+json;version=2.1");
    await streamText(req, res, logger, async function* () {
      yield `{"type":"bundle","id":${JSON.stringify(stixId("bundle", `${iocListSearch(params)}|${generated}`))},"objects":[`;
      const emitted = new Set<string>();
      const items = jsonArrayChunks();
      for await (const rows of exportBatches(options, params, clock)) {
        const sightings = await sightingsOf(
          db,
          rows.map((row) => row.id),
        );
        for (const chunk of slices(rows)) {
          const objects: string[] = [];
          for (const row of chunk) {
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
            for (const object of stixObjectsFor(input, generated, emitted)) objects.push(JSON.stringify(object));
          }
          yield items(objects);
        }
      }
      yield "]}";
    });
  };
}

/** One value per line, benign-listed values left out. */
function blocklist(options: IocExportOptions): RequestHandler {
  const { db, iocs, now, logger } = options;
  return async (req, res) => {
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
  };
}

/** The newest filtered indicators as an Atom feed. */
function atomFeed(options: IocExportOptions): RequestHandler {
  const { iocs, now, siteUrl } = options;
  return async (req, res) => {
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
  };
}
