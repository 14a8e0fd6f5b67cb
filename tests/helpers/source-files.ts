import { createReadStream, readdirSync, readFileSync } from "node:fs";
import { gunzipSync } from "node:zlib";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { createGunzip } from "node:zlib";
import { DATA_DIR } from "./paths";

/** A CVSS block of a CVE JSON 5 metric (`cvssV4_0`, `cvssV3_1`, `cvssV3_0`, `cvssV2_0`). */
export interface RawCvss {
  baseScore?: unknown;
  baseSeverity?: unknown;
  vectorString?: string;
}

/** An affected entry of a CNA or ADP container. */
export interface RawAffected {
  vendor?: string;
  product?: string;
  packageName?: string;
}

/** The parts of a CNA or ADP container the tests read. */
export interface RawContainer {
  providerMetadata?: { shortName?: string };
  title?: string;
  descriptions?: Array<{ lang?: string; value?: string }>;
  rejectedReasons?: Array<{ lang?: string; value?: string }>;
  affected?: RawAffected[];
  metrics?: Array<Record<string, RawCvss | unknown>>;
  problemTypes?: Array<{ descriptions?: Array<{ cweId?: string; description?: string }> }>;
  references?: Array<{ url?: string; name?: string; tags?: string[] }>;
}

/** A CVE JSON 5 record as far as the tests read it straight from the snapshot files. */
export interface RawCveRecord {
  cveMetadata: { cveId: string; state: string; datePublished?: string; dateUpdated?: string; dateReserved?: string };
  containers: {
    cna?: RawContainer;
    adp?: RawContainer[];
  };
}

const CVE_JSON5_DIR = join(DATA_DIR, "cve-json5-vulnrichment");

async function* recordsOf(file: string): AsyncGenerator<RawCveRecord> {
  const lines = createInterface({ input: createReadStream(join(CVE_JSON5_DIR, file)).pipe(createGunzip()), crlfDelay: Infinity });
  for await (const line of lines) if (line.trim()) yield JSON.parse(line) as RawCveRecord;
}

/** Every CVE JSON 5 record of the snapshot, read independently of the product's parser. */
export async function* rawCveRecords(): AsyncGenerator<RawCveRecord> {
  for (const file of readdirSync(CVE_JSON5_DIR)
    .filter((name) => name.endsWith(".jsonl.gz"))
    .sort())
    yield* recordsOf(file);
}

/** The snapshot's CVE JSON 5 bundle of one year (records whose id has that year). */
export function cveJson5YearFile(year: number | string): string {
  return join(CVE_JSON5_DIR, `vulnrichment_cve5_${year}.jsonl.gz`);
}

/** The CVE JSON 5 records of one year's bundle. */
export function rawCveRecordsOfYear(year: number | string): AsyncGenerator<RawCveRecord> {
  return recordsOf(`vulnrichment_cve5_${year}.jsonl.gz`);
}

/** The CNA container first, then every ADP container. */
export function rawContainers(record: RawCveRecord): RawContainer[] {
  return [...(record.containers.cna ? [record.containers.cna] : []), ...(record.containers.adp ?? [])];
}

/** The snapshot's FIRST EPSS file (one day of scores). */
export function epssSnapshotFile(): string {
  const dir = join(DATA_DIR, "epss");
  const name = readdirSync(dir).find((file) => /\.csv(\.gz)?$/.test(file));
  if (!name) throw new Error(`no EPSS file in ${dir}`);
  return join(dir, name);
}

/** Every line of the snapshot's EPSS file, as published (no parsing). */
export async function* rawEpssLines(): AsyncGenerator<string> {
  const file = epssSnapshotFile();
  const input = file.endsWith(".gz") ? createReadStream(file).pipe(createGunzip()) : createReadStream(file);
  const lines = createInterface({ input, crlfDelay: Infinity });
  for await (const line of lines) yield line;
}

/** Every page of the Trickest PoC snapshot: `{ path: "2024/CVE-2024-3400.md", content: "<markdown>" }`. */
export async function* rawTrickestPages(): AsyncGenerator<{ path: string; content: string }> {
  const dir = join(DATA_DIR, "trickest-cve-poc");
  for (const file of readdirSync(dir)
    .filter((name) => name.endsWith(".jsonl.gz"))
    .sort()) {
    const lines = createInterface({ input: createReadStream(join(dir, file)).pipe(createGunzip()), crlfDelay: Infinity });
    for await (const line of lines) if (line.trim()) yield JSON.parse(line) as { path: string; content: string };
  }
}

/** A weakness's name as MITRE's CWE catalogue (the snapshot's XML) writes it, XML entities decoded; null when absent. */
export function cweCatalogueName(id: string): string | null {
  const dir = join(DATA_DIR, "mitre-cwe");
  const file = readdirSync(dir).find((name) => /\.xml(\.gz)?$/.test(name));
  if (!file) throw new Error(`no CWE catalogue in ${dir}`);
  const bytes = readFileSync(join(dir, file));
  const xml = (file.endsWith(".gz") ? gunzipSync(bytes) : bytes).toString("utf8");
  const name = new RegExp(`<Weakness ID="${id.replace(/^CWE-/, "")}" Name="([^"]*)"`).exec(xml)?.[1];
  if (name === undefined) return null;
  return name
    .replace(/&apos;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&");
}

/** One entry of CISA's KEV catalogue, as far as the tests read it. */
export interface KevCatalogueEntry {
  cveID: string;
  vendorProject: string;
  product: string;
  vulnerabilityName: string;
  shortDescription: string;
  dateAdded: string;
  dueDate: string;
  knownRansomwareCampaignUse: string;
  cwes?: string[];
}

export function kevCatalogue(): KevCatalogueEntry[] {
  return JSON.parse(readFileSync(join(DATA_DIR, "cisa-kev/known_exploited_vulnerabilities.json"), "utf8")).vulnerabilities;
}

/** A raw CVE record timestamp as the database stores it: ISO 8601 UTC; the CVE format's zone-less times are UTC. */
export function utcTimestamp(raw: string | undefined | null): string | null {
  if (!raw) return null;
  return new Date(/[zZ]|[+-]\d{2}:?\d{2}$/.test(raw) || !raw.includes("T") ? raw : `${raw}Z`).toISOString();
}
