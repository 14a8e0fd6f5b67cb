import { Router } from "express";
import type { Kysely } from "kysely";
import type { Logger } from "pino";
import { parseCveId } from "../../shared/cve/cve-id";
import { cveListParamsSchema, cveListSearch, type CveListParams } from "../../shared/cve/list-params";
import type { CveListRow } from "../../shared/cve/list-types";
import { csvRow } from "../../shared/util/csv";
import { LIST_COLUMNS, orderedCves, toListRow } from "../cve/list";
import type { CveService } from "../cve/service";
import type { Database } from "../db/schema";
import { renderAtom } from "../syndication/atom";
import { siteOrigin } from "./site-url";
import { jsonArrayChunks, slices, streamText } from "./streaming";
import { sendBadRequest, validQuery } from "./validation";

/** Exports stop after this many rows; narrow the filter for more. */
export const CVE_EXPORT_MAX_ROWS = 10_000;
export const CVE_FEED_MAX_ENTRIES = 100;

const CSV_HEADER = [
  "id",
  "state",
  "has_record",
  "title",
  "vendor",
  "product",
  "cvss_score",
  "cvss_severity",
  "cvss_version",
  "cvss_source",
  "epss",
  "epss_percentile",
  "epss_change_7d",
  "kev",
  "kev_date_added",
  "kev_due_date",
  "kev_known_ransomware",
  "exploit_count",
  "published",
  "updated",
  "radar_priority",
];

function csvValues(row: CveListRow) {
  return [
    row.id,
    row.state,
    row.hasRecord,
    row.title,
    row.vendor,
    row.product,
    row.cvss?.score,
    row.cvss?.severity,
    row.cvss?.version,
    row.cvss?.source,
    row.epss?.score,
    row.epss?.percentile,
    row.epss?.change7d,
    row.kev !== null,
    row.kev?.dateAdded,
    row.kev?.dueDate,
    row.kev?.ransomware,
    row.exploitCount,
    row.published,
    row.updated,
    row.priority,
  ];
}

const EXPORT_BATCH = 500;

/**
 * The export's rows in chunks (streaming.ts), one short read per batch: nothing is held while the client reads.
 * Each batch is found as a list page is (a walk of the sort index when the filter matches many CVEs): gathering
 * sorted every match again for each batch, 20 sorts of 361,109 rows for the unfiltered export.
 */
async function* exportChunks(db: Kysely<Database>, cves: CveService, params: CveListParams) {
  for (let offset = 0; offset < CVE_EXPORT_MAX_ROWS; offset += EXPORT_BATCH) {
    const scan = await cves.scanFor(params, offset + EXPORT_BATCH);
    const rows = await orderedCves(db, params, scan).select(LIST_COLUMNS).limit(EXPORT_BATCH).offset(offset).execute();
    yield* slices(rows.map(toListRow));
    if (rows.length < EXPORT_BATCH) return;
  }
}

export interface CveRoutesOptions {
  db: Kysely<Database>;
  logger: Logger;
  cves: CveService;
  now: () => Date;
  siteUrl?: string;
}

/** `/api/v1/cves`: the list with the page's filters, statistics, one record, exports and an Atom feed. */
export function cveRoutes({ db, cves, now, siteUrl, logger }: CveRoutesOptions): Router {
  const router = Router();

  router.get("/cves", async (req, res) => {
    const params = validQuery(cveListParamsSchema, req.originalUrl, res);
    if (params) res.json(await cves.list(params));
  });

  router.get("/cves/stats", async (req, res) => {
    const params = validQuery(cveListParamsSchema, req.originalUrl, res);
    if (params) res.json(await cves.stats(params));
  });

  router.get("/cves/export.csv", async (req, res) => {
    const params = validQuery(cveListParamsSchema, req.originalUrl, res);
    if (!params) return;
    res.type("text/csv; charset=utf-8").attachment("cves.csv");
    await streamText(req, res, logger, async function* () {
      yield csvRow(CSV_HEADER);
      for await (const chunk of exportChunks(db, cves, params)) yield chunk.map((row) => csvRow(csvValues(row))).join("");
    });
  });

  router.get("/cves/export.json", async (req, res) => {
    const params = validQuery(cveListParamsSchema, req.originalUrl, res);
    if (!params) return;
    res.type("application/json").attachment("cves.json");
    await streamText(req, res, logger, async function* () {
      yield `{"generatedAt":${JSON.stringify(now().toISOString())},"maxRows":${CVE_EXPORT_MAX_ROWS},"cves":[`;
      const items = jsonArrayChunks();
      for await (const chunk of exportChunks(db, cves, params)) yield items(chunk.map((row) => JSON.stringify(row)));
      yield "]}";
    });
  });

  router.get("/cves/feed.atom", async (req, res) => {
    const params = validQuery(cveListParamsSchema, req.originalUrl, res);
    if (!params) return;
    const feedParams: CveListParams = {
      ...params,
      sort: params.sort ?? "published",
      page: 1,
      per_page: Math.min(params.per_page ?? 50, CVE_FEED_MAX_ENTRIES),
    };
    const { rows } = await cves.list(feedParams);
    const origin = siteOrigin(req, siteUrl);
    const search = cveListSearch(params);
    const updated =
      rows
        .map((row) => row.updated ?? row.published ?? "")
        .sort()
        .at(-1) || now().toISOString();
    res.type("application/atom+xml; charset=utf-8").send(
      renderAtom({
        id: `${origin}/cve-radar${search}`,
        title: `Threat Radar: CVEs${search ? ` (${decodeURIComponent(search.slice(1))})` : ""}`,
        selfLink: `${origin}/api/v1/cves/feed.atom${search}`,
        alternateLink: `${origin}/cve-radar${search}`,
        updated,
        entries: rows.map((row) => ({
          id: `${origin}/cve-radar/${row.id}`,
          title: `${row.id}: ${row.title}`.slice(0, 300),
          link: `${origin}/cve-radar/${row.id}`,
          updated: row.updated ?? row.published ?? updated,
          published: row.published,
          summary: [
            row.cvss ? `CVSS ${row.cvss.version ?? ""} ${row.cvss.score} ${row.cvss.severity}` : "No CVSS",
            row.epss ? `EPSS ${row.epss.score}` : null,
            row.kev ? `CISA KEV since ${row.kev.dateAdded}, due ${row.kev.dueDate}` : null,
            row.exploitCount > 0 ? `${row.exploitCount} public exploit references` : null,
            `Radar priority ${row.priority}`,
          ]
            .filter(Boolean)
            .join(" · "),
          categories: [row.cvss?.severity, row.kev ? "KEV" : null, row.vendor].filter((v): v is string => Boolean(v)),
        })),
      }),
    );
  });

  router.get("/cves/:id", async (req, res) => {
    const id = parseCveId(req.params.id);
    if (!id) {
      sendBadRequest(res, [{ param: "id", message: "must be a CVE id like CVE-2024-3400" }]);
      return;
    }
    const detail = await cves.detail(id, now());
    if (!detail) {
      res.status(404).json({ error: { statusCode: 404, message: `${id} is not in any feed this site imports` } });
      return;
    }
    res.json(detail);
  });

  return router;
}
