import { parseCveId } from "../../../shared/cve/cve-id";
import type { AffectedProduct, CveRecord, CveReference, CveWeakness, CvssMetric, CvssVersion, DataProvider } from "./records";
import { accepted, rejected, type ParseResult } from "../toolkit/result";
import { cvssSeverity } from "../../../shared/cve/cvss-vector";
import { baseScoreOf, isValidBaseScore } from "./cvss";
import { asNumber, asObject, asString, asUtcTimestamp, objects, strings, type JsonObject } from "./shape";

/** NVD API 2.0 metric arrays, newest CVSS version first. */
const METRIC_KEYS: ReadonlyArray<[string, CvssVersion]> = [
  ["cvssMetricV40", "4.0"],
  ["cvssMetricV31", "3.1"],
  ["cvssMetricV30", "3.0"],
  ["cvssMetricV2", "2.0"],
];

const NVD_SOURCE = "nvd@nist.gov";
/** The CISA ADP's organisation id, as NVD names it in `source`. */
const CISA_ADP_ORG_ID = "134c704f-9b21-4f2e-91b3-4a467353bcc0";

export interface NvdPage {
  resultsPerPage: number;
  startIndex: number;
  totalResults: number;
  timestamp: string | null;
  records: Array<ParseResult<CveRecord>>;
}

/** NVD names the asserting party by e-mail or org id; we keep the CNA / CISA-ADP / NVD distinction. */
function providerOf(source: string | null): DataProvider {
  if (source === NVD_SOURCE) return "nvd";
  if (source === CISA_ADP_ORG_ID) return "cisa-adp";
  return "cna";
}

/** NVD timestamps are UTC without a zone ("2024-04-12T08:15:06.230"). */
function metricsOf(cve: JsonObject): CvssMetric[] {
  const metrics = asObject(cve.metrics) ?? {};
  return METRIC_KEYS.flatMap(([key, version]) =>
    objects(metrics[key]).flatMap((entry) => {
      const data = asObject(entry.cvssData) ?? {};
      const score = asNumber(data.baseScore);
      if (!isValidBaseScore(score)) return [];
      const vector = asString(data.vectorString);
      const computed = baseScoreOf(version, vector);
      return [
        {
          source: providerOf(asString(entry.source)),
          version,
          score,
          // v2 keeps its rating beside cvssData rather than inside it.
          severity: (asString(data.baseSeverity) ?? asString(entry.baseSeverity))?.toUpperCase() ?? cvssSeverity(score, version),
          computedScore: computed?.score ?? null,
          computedSeverity: computed?.severity ?? null,
          vector,
          nvdType: asString(entry.type),
        },
      ];
    }),
  );
}

function weaknessesOf(cve: JsonObject): CveWeakness[] {
  return objects(cve.weaknesses).flatMap((weakness) => {
    const source = providerOf(asString(weakness.source));
    return objects(weakness.description).flatMap((d) => {
      const cweId = asString(d.value);
      return cweId ? [{ source, cweId, description: null }] : [];
    });
  });
}

/** cpe:2.3:part:vendor:product:version:… → vendor and product (CPE escapes undone). */
function vendorProduct(cpe: string): { vendor: string; product: string; version: string } | null {
  const parts = cpe.split(/(?<!\\):/);
  if (parts.length < 6 || parts[0] !== "cpe") return null;
  const unescape = (text: string) => text.replace(/\\(.)/g, "$1");
  return { vendor: unescape(parts[3] ?? ""), product: unescape(parts[4] ?? ""), version: unescape(parts[5] ?? "") };
}

/** Vulnerable CPE matches grouped by vendor/product, with their version bounds. */
function affectedOf(cve: JsonObject): AffectedProduct[] {
  const byProduct = new Map<string, AffectedProduct>();
  for (const configuration of objects(cve.configurations)) {
    for (const node of objects(configuration.nodes)) {
      for (const match of objects(node.cpeMatch)) {
        const criteria = asString(match.criteria);
        if (match.vulnerable !== true || !criteria) continue;
        const parsed = vendorProduct(criteria);
        if (!parsed) continue;
        const key = `${parsed.vendor}:${parsed.product}`;
        const product =
          byProduct.get(key) ??
          ({
            source: "nvd",
            vendor: parsed.vendor,
            product: parsed.product,
            defaultStatus: "unaffected",
            versions: [],
            cpes: [],
          } satisfies AffectedProduct);
        byProduct.set(key, product);
        if (!product.cpes.includes(criteria)) product.cpes.push(criteria);
        const start = asString(match.versionStartIncluding) ?? asString(match.versionStartExcluding);
        const endExcluding = asString(match.versionEndExcluding);
        const endIncluding = asString(match.versionEndIncluding);
        const exact = parsed.version !== "*" && parsed.version !== "-" ? parsed.version : null;
        product.versions.push({
          version: start ?? exact ?? "0",
          status: "affected",
          versionType: "cpe",
          ...(endExcluding ? { lessThan: endExcluding } : {}),
          ...(endIncluding ? { lessThanOrEqual: endIncluding } : {}),
        });
      }
    }
  }
  return [...byProduct.values()];
}

function referencesOf(cve: JsonObject): CveReference[] {
  const byUrl = new Map<string, CveReference>();
  for (const r of objects(cve.references)) {
    const url = asString(r.url)?.trim();
    if (!url || byUrl.has(url)) continue;
    byUrl.set(url, { url, name: null, tags: strings(r.tags), source: providerOf(asString(r.source)) });
  }
  return [...byUrl.values()];
}

/** One `vulnerabilities[].cve` object of an NVD CVE API 2.0 response. */
export function normalizeNvdCve(value: unknown, location: string): ParseResult<CveRecord> {
  const cve = asObject(value);
  if (!cve) return rejected(location, "cve is not an object");
  const id = typeof cve.id === "string" ? parseCveId(cve.id) : null;
  if (!id) return rejected(location, `id ${JSON.stringify(cve.id)} is not a CVE id`);
  const status = asString(cve.vulnStatus);
  const descriptions = objects(cve.descriptions).flatMap((d) => {
    const text = asString(d.value);
    return text ? [{ lang: asString(d.lang) ?? "en", value: text }] : [];
  });
  return accepted({
    id,
    state: status === "Rejected" ? "REJECTED" : "PUBLISHED",
    title: asString(cve.cisaVulnerabilityName),
    descriptions,
    assignerOrgId: null,
    assignerShortName: asString(cve.sourceIdentifier),
    dateReserved: null,
    datePublished: asUtcTimestamp(cve.published),
    dateUpdated: asUtcTimestamp(cve.lastModified),
    dataVersion: null,
    metrics: metricsOf(cve),
    affected: affectedOf(cve),
    references: referencesOf(cve),
    weaknesses: weaknessesOf(cve),
    ssvc: [],
  });
}

/** A whole API page. Pages are bounded (≤ 2,000 CVEs), so one is parsed at a time. */
export function parseNvdPage(text: string, name: string): NvdPage {
  let page: unknown;
  try {
    page = JSON.parse(text);
  } catch (error) {
    throw new Error(`${name}: not a JSON document (${(error as Error).message})`, { cause: error });
  }
  const root = asObject(page);
  const vulnerabilities = root?.vulnerabilities;
  if (!root || !Array.isArray(vulnerabilities)) throw new Error(`${name}: no "vulnerabilities" array, not an NVD API 2.0 page`);
  return {
    resultsPerPage: asNumber(root.resultsPerPage) ?? vulnerabilities.length,
    startIndex: asNumber(root.startIndex) ?? 0,
    totalResults: asNumber(root.totalResults) ?? vulnerabilities.length,
    timestamp: asUtcTimestamp(root.timestamp),
    records: vulnerabilities.map((entry, index) => normalizeNvdCve(asObject(entry)?.cve, `${name}#vulnerabilities[${index}]`)),
  };
}
