import { Router } from "express";
import { z } from "zod";
import { cveListParamsSchema } from "../../shared/cve/list-params";
import { CVE_EXPORT_MAX_ROWS, CVE_FEED_MAX_ENTRIES } from "./cves";

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
      "/sources": {
        get: { summary: "Status and freshness of every feed", responses: { 200: json("Sources"), 429: tooMany } },
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
