import { Router } from "express";
import { z } from "zod";
import { cveListParamsSchema } from "../../shared/cve/list-params";
import { blocklistParamsSchema, iocListParamsSchema } from "../../shared/ioc-radar/list-params";
import { LOOKUP_MAX_BYTES, LOOKUP_MAX_INDICATORS } from "../../shared/ioc-radar/lookup-types";
import { CVE_EXPORT_MAX_ROWS, CVE_FEED_MAX_ENTRIES } from "./cves";
import { IOC_BLOCKLIST_MAX_ROWS, IOC_EXPORT_MAX_ROWS, IOC_FEED_MAX_ENTRIES } from "./ioc-exports";
import { SUGGEST_LIMIT, suggestSchema } from "./suggest";

function queryParameters(schema: z.ZodObject) {
  return Object.entries(schema.shape).map(([name, field]) => ({
    name,
    in: "query",
    required: false,
    schema: z.toJSONSchema(field as z.ZodType, { io: "input", unrepresentable: "any" }),
  }));
}

const problem = {
  description: "A parameter is invalid; the body names it",
  content: {
    "application/json": {
      schema: {
        type: "object",
        properties: {
          error: {
            type: "object",
            properties: {
              statusCode: { type: "integer" },
              message: { type: "string" },
              problems: { type: "array", items: { type: "object", properties: { param: { type: "string" }, message: { type: "string" } } } },
            },
          },
        },
      },
    },
  },
};

const json = (description: string) => ({ description, content: { "application/json": { schema: { type: "object" } } } });
const tooMany = { description: "Rate limit exceeded" };

/** The OpenAPI 3.1 description of `/api/v1`, built from the same schemas that validate requests. */
export function openApiDocument() {
  const cveQuery = queryParameters(cveListParamsSchema);
  const iocQuery = queryParameters(iocListParamsSchema);
  return {
    openapi: "3.1.0",
    info: {
      title: "Threat Radar API",
      version: "1",
      description:
        "CVE and IOC radar data from the publishers' own feeds. Every query parameter is validated; an unknown or bad one is answered 400 with a body naming it.",
    },
    servers: [{ url: "/api/v1" }],
    paths: {
      "/cves": {
        get: {
          summary: "Filtered, sorted, paginated list of CVEs (the CVE radar)",
          parameters: cveQuery,
          responses: { 200: json("A page of CVEs with total and page count"), 400: problem, 429: tooMany },
        },
      },
      "/cves/stats": {
        get: {
          summary: "Chart statistics of the filtered list: per day by severity, severity distribution, top vendors",
          parameters: cveQuery,
          responses: { 200: json("Statistics"), 400: problem, 429: tooMany },
        },
      },
      "/cves/export.csv": {
        get: {
          summary: `The filtered list as CSV, streamed, at most ${CVE_EXPORT_MAX_ROWS} rows`,
          parameters: cveQuery,
          responses: { 200: { description: "CSV", content: { "text/csv": {} } }, 400: problem, 429: tooMany },
        },
      },
      "/cves/export.json": {
        get: {
          summary: `The filtered list as JSON, streamed, at most ${CVE_EXPORT_MAX_ROWS} rows`,
          parameters: cveQuery,
          responses: { 200: json("{ generatedAt, maxRows, cves: [...] }"), 400: problem, 429: tooMany },
        },
      },
      "/cves/feed.atom": {
        get: {
          summary: `Atom feed of the filtered list, newest published first unless sorted otherwise, at most ${CVE_FEED_MAX_ENTRIES} entries`,
          parameters: cveQuery,
          responses: { 200: { description: "Atom 1.0", content: { "application/atom+xml": {} } }, 400: problem, 429: tooMany },
        },
      },
      "/cves/{id}": {
        get: {
          summary: "Everything known about one CVE, including the Radar priority breakdown",
          parameters: [{ name: "id", in: "path", required: true, schema: { type: "string", pattern: "^CVE-\\d{4}-\\d{4,}$" } }],
          responses: { 200: json("The CVE"), 400: problem, 404: json("No feed mentions this CVE"), 429: tooMany },
        },
      },
      "/iocs": {
        get: {
          summary: "Filtered, sorted, paginated list of indicators (the IOC radar), newest last seen first, each with its score and benign-list matches",
          parameters: iocQuery,
          responses: { 200: json("A page of indicators with total and page count"), 400: problem, 429: tooMany },
        },
      },
      "/iocs/stats": {
        get: {
          summary: "Chart statistics of the filtered list: per day by type, type distribution, top malware families",
          parameters: iocQuery,
          responses: { 200: json("Statistics"), 400: problem, 429: tooMany },
        },
      },
      "/iocs/export.csv": {
        get: {
          summary: `The filtered indicators as CSV, streamed, at most ${IOC_EXPORT_MAX_ROWS} rows`,
          parameters: iocQuery,
          responses: { 200: { description: "CSV", content: { "text/csv": {} } }, 400: problem, 429: tooMany },
        },
      },
      "/iocs/export.json": {
        get: {
          summary: `The filtered indicators as JSON, streamed, at most ${IOC_EXPORT_MAX_ROWS} rows`,
          parameters: iocQuery,
          responses: { 200: json("{ generatedAt, maxRows, iocs: [...] }"), 400: problem, 429: tooMany },
        },
      },
      "/iocs/export.stix.json": {
        get: {
          summary: `The filtered indicators as a STIX 2.1 bundle (indicators with patterns, sightings per feed, malware and "indicates" relationships; UUIDv5 ids), at most ${IOC_EXPORT_MAX_ROWS} indicators`,
          parameters: iocQuery,
          responses: { 200: { description: "STIX 2.1 bundle", content: { "application/stix+json;version=2.1": {} } }, 400: problem, 429: tooMany },
        },
      },
      "/iocs/blocklist.txt": {
        get: {
          summary: `One value per line of one type (required), with the list's filters; benign-listed values are left out; at most ${IOC_BLOCKLIST_MAX_ROWS} lines`,
          parameters: queryParameters(blocklistParamsSchema).map((p) => (p.name === "type" ? { ...p, required: true } : p)),
          responses: { 200: { description: "Plain text", content: { "text/plain": {} } }, 400: problem, 429: tooMany },
        },
      },
      "/iocs/feed.atom": {
        get: {
          summary: `Atom feed of the filtered indicators, at most ${IOC_FEED_MAX_ENTRIES} entries`,
          parameters: iocQuery,
          responses: { 200: { description: "Atom 1.0", content: { "application/atom+xml": {} } }, 400: problem, 429: tooMany },
        },
      },
      "/iocs/lookup": {
        post: {
          summary: `Bulk lookup: extracts and normalises every indicator in free text (defanged or not), at most ${LOOKUP_MAX_INDICATORS} indicators or ${LOOKUP_MAX_BYTES} bytes, and classifies each as known, unknown or benign-listed`,
          description:
            "Send JSON { text, token? } or a text/plain body (token in the X-Bot-Check-Token header). When the bot check is configured, the token from reCAPTCHA v3 (action bulk_lookup) is verified server-side. Has its own, stricter rate limit.",
          requestBody: {
            required: true,
            content: {
              "application/json": { schema: { type: "object", required: ["text"], properties: { text: { type: "string" }, token: { type: "string" } } } },
              "text/plain": { schema: { type: "string" } },
            },
          },
          responses: {
            200: json("{ count, summary: { byVerdict, byType }, results: [...] }"),
            400: problem,
            403: json("The bot check failed"),
            413: json(`More than ${LOOKUP_MAX_INDICATORS} indicators or ${LOOKUP_MAX_BYTES} bytes`),
            429: tooMany,
          },
        },
      },
      "/iocs/{value}": {
        get: {
          summary:
            "Everything known about one indicator (any defanged form): score breakdown, sightings, activity, related indicators, CVEs, warninglist matches; an unseen valid indicator answers known: false",
          parameters: [{ name: "value", in: "path", required: true, schema: { type: "string" } }],
          responses: { 200: json("The indicator"), 400: problem, 429: tooMany },
        },
      },
      "/sources": {
        get: { summary: "Status and freshness of every feed", responses: { 200: json("Sources"), 429: tooMany } },
      },
      "/suggest": {
        get: {
          summary: `Typeahead for the header search: up to ${SUGGEST_LIMIT} CVE ids, vendors and products starting with q`,
          parameters: queryParameters(suggestSchema),
          responses: { 200: json("{ suggestions: string[] }"), 400: problem, 429: tooMany },
        },
      },
    },
  };
}

export function openApiRoutes(): Router {
  const router = Router();
  const document = openApiDocument();
  router.get("/openapi.json", (_req, res) => {
    res.json(document);
  });
  return router;
}
