import { createHash } from "node:crypto";
import { mkdirSync, rmSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { parseArgs } from "node:util";
import pino from "pino";
import type { CveRecord } from "../shared/types/cve";
import type { IocSighting } from "../shared/types/ioc";
import type { IndicatorType } from "../shared/ioc/types";
import { openSqliteDatabase } from "../server/db/connection";
import { migrateToLatest } from "../server/db/migrate";
import { loadPipelineConfig } from "../server/pipeline/config";
import { refreshCveDerived } from "../server/pipeline/derived";
import { accepted } from "../server/pipeline/feed";
import { chunk, insertRows } from "../server/pipeline/importer";
import { cveRecordImporter } from "../server/pipeline/importers/cve-records";
import { indicatorImporter } from "../server/pipeline/importers/indicators";
import { runImport } from "../server/pipeline/run";
import { syncSource } from "../server/pipeline/sync";

/**
 * `npx tsx bench/generate.ts [--out .bench/scaled.sqlite] [--cves 300000] [--indicators 1000000]`
 *
 * Builds a database for performance work, never the product's: the real
 * snapshots first, then CVE records cloned under new ids (real content; each
 * clone inherits its original's KEV, EPSS and exploit evidence, so the spread
 * stays the real one) up to --cves, and indicators derived from real
 * sightings (same type, new value, real attributes) up to --indicators.
 */
const projectRoot = resolve(import.meta.dirname, "..");
const { values } = parseArgs({
  options: {
    out: { type: "string", default: resolve(projectRoot, ".bench/scaled.sqlite") },
    mirror: { type: "string" },
    cves: { type: "string", default: "300000" },
    indicators: { type: "string", default: "1000000" },
  },
});
const mirrorDir = values.mirror ?? process.env.THREAT_RADAR_DATA_DIR ?? resolve(projectRoot, "../shared/data");
const targetCves = Number(values.cves);
const targetIndicators = Number(values.indicators);
const logger = pino({ level: "warn" });
const now = new Date();

rmSync(values.out, { force: true });
rmSync(`${values.out}-wal`, { force: true });
rmSync(`${values.out}-shm`, { force: true });
mkdirSync(dirname(values.out), { recursive: true });
const { db, close } = openSqliteDatabase(values.out);
await migrateToLatest(db);

const config = loadPipelineConfig({});
for (const name of ["cve-json5", "cisa-kev", "epss", "trickest-poc", "mitre-cwe", "feodotracker", "malwarebazaar", "tweetfeed"]) {
  const outcome = await syncSource(name, { db, config, logger, mirrorDir });
  console.error(`${name}: ${outcome.status}, ${outcome.counts.added} added in ${(outcome.durationMs / 1000).toFixed(1)} s`);
}

async function count(table: "cves" | "indicators"): Promise<number> {
  return Number((await db.selectFrom(table).select((eb) => eb.fn.countAll().as("n")).executeTakeFirstOrThrow()).n);
}

// ---- CVEs: clones of real records under ids no real CVE uses (8-digit sequence numbers).
const originals = await db.selectFrom("cves").select("id").where("record_source", "=", "cve-json5").orderBy("id").execute();
const cloneCount = Math.max(0, targetCves - (await count("cves")));
const cloneOf = new Map<string, string>();
async function* clones() {
  const ids = originals.map((o) => o.id);
  for (let n = 0; n < cloneCount; n += 1) {
    const original = ids[n % ids.length]!;
    const year = original.split("-")[1];
    const id = `CVE-${year}-${10_000_000 + n}`;
    cloneOf.set(id, original);
    const row = await db.selectFrom("cves").selectAll().where("id", "=", original).executeTakeFirstOrThrow();
    const [metrics, affected, references, weaknesses, ssvc] = await Promise.all([
      db.selectFrom("cve_cvss").selectAll().where("cve_id", "=", original).where("origin", "=", "cve-json5").execute(),
      db.selectFrom("cve_affected").selectAll().where("cve_id", "=", original).where("origin", "=", "cve-json5").execute(),
      db.selectFrom("cve_references").selectAll().where("cve_id", "=", original).where("origin", "=", "cve-json5").execute(),
      db.selectFrom("cve_cwes").selectAll().where("cve_id", "=", original).where("origin", "=", "cve-json5").execute(),
      db.selectFrom("cve_ssvc").selectAll().where("cve_id", "=", original).where("origin", "=", "cve-json5").execute(),
    ]);
    const record: CveRecord = {
      id,
      state: row.state as CveRecord["state"],
      title: row.title,
      descriptions: JSON.parse(row.descriptions),
      assignerOrgId: row.assigner_org_id,
      assignerShortName: row.assigner_short_name,
      dateReserved: row.date_reserved,
      datePublished: row.date_published,
      dateUpdated: row.date_updated,
      dataVersion: row.data_version,
      metrics: metrics.map((m) => ({ source: m.source, version: m.version as "3.1", score: m.score, severity: m.severity, vector: m.vector, nvdType: null })),
      affected: affected.map((a) => ({ source: a.source, vendor: a.vendor, product: a.product, defaultStatus: a.default_status, versions: JSON.parse(a.versions), cpes: JSON.parse(a.cpes) })),
      references: references.map((r) => ({ url: r.url, name: r.name, tags: JSON.parse(r.tags), source: r.source })),
      weaknesses: weaknesses.map((w) => ({ source: w.source, cweId: w.cwe_id, description: w.description })),
      ssvc: ssvc.map((s) => ({ source: s.source, exploitation: s.exploitation, automatable: s.automatable, technicalImpact: s.technical_impact, version: s.version, role: s.role, timestamp: s.timestamp })),
    };
    yield accepted(record);
  }
}
const cveOutcome = await runImport({
  db,
  source: "cve-json5",
  read: clones,
  importer: cveRecordImporter("cve-json5"),
  locations: [],
  logger,
  now,
});
console.error(`cloned CVEs: ${cveOutcome.counts.added} in ${(cveOutcome.durationMs / 1000).toFixed(1)} s`);

// Each clone inherits its original's evidence, so KEV / EPSS / exploit rates stay the real ones.
await db.transaction().execute(async (trx) => {
  for (const part of chunk([...cloneOf], 500)) {
    const originalsPart = part.map(([, original]) => original);
    const cloneIds = new Map<string, string[]>();
    for (const [clone, original] of part) cloneIds.set(original, [...(cloneIds.get(original) ?? []), clone]);
    const kev = await trx.selectFrom("kev_entries").selectAll().where("cve_id", "in", originalsPart).execute();
    const epss = await trx.selectFrom("epss_scores").selectAll().where("cve_id", "in", originalsPart).execute();
    const exploits = await trx.selectFrom("cve_exploits").selectAll().where("cve_id", "in", originalsPart).where("origin", "=", "trickest-poc").execute();
    await insertRows(trx, "kev_entries", kev.flatMap((k) => (cloneIds.get(k.cve_id) ?? []).map((cve_id) => ({ ...k, cve_id }))));
    await insertRows(trx, "epss_scores", epss.flatMap((e) => (cloneIds.get(e.cve_id) ?? []).map((cve_id) => ({ ...e, cve_id }))));
    await insertRows(trx, "cve_exploits", exploits.flatMap((x) => (cloneIds.get(x.cve_id) ?? []).map((cve_id) => ({ ...x, cve_id }))));
  }
  await refreshCveDerived(trx, "all", now);
});
console.error(`CVEs: ${await count("cves")}`);

// ---- Indicators: variations of real sightings, same type, new value.
function variant(type: string, value: string, n: number): string | null {
  const tag = `g${n.toString(36)}`;
  switch (type as IndicatorType) {
    case "domain":
      return `${tag}.${value}`;
    case "url":
      return value.replace("://", `://${tag}.`);
    case "md5":
    case "sha1":
    case "sha256":
    case "sha512":
      return createHash(type === "md5" ? "md5" : type).update(`${value}:${n}`).digest("hex");
    case "ipv4": {
      const hash = createHash("md5").update(`${value}:${n}`).digest();
      return `${(hash[0]! % 223) + 1}.${hash[1]}.${hash[2]}.${hash[3]}`;
    }
    default:
      return null;
  }
}

const missing = Math.max(0, targetIndicators - (await count("indicators")));
const seeds = await db
  .selectFrom("indicator_sightings as s")
  .innerJoin("indicators as i", "i.id", "s.indicator_id")
  .select(["i.type", "i.value", "s.source", "s.first_seen", "s.last_seen", "s.threat_type", "s.malware_family", "s.tags", "s.confidence", "s.reporter", "s.reference"])
  .execute();
async function* syntheticSightings() {
  for (let n = 0, made = 0; made < missing && seeds.length > 0; n += 1) {
    const seed = seeds[n % seeds.length]!;
    const value = variant(seed.type, seed.value, n);
    if (!value) continue;
    made += 1;
    const sighting: IocSighting = {
      source: seed.source,
      indicator: { type: seed.type as IndicatorType, value },
      rawValue: value,
      firstSeen: seed.first_seen,
      lastSeen: seed.last_seen,
      threatType: seed.threat_type,
      malwareFamily: seed.malware_family,
      tags: JSON.parse(seed.tags),
      confidence: seed.confidence,
      reporter: seed.reporter,
      reference: seed.reference,
    };
    yield accepted(sighting);
  }
}
const iocOutcome = await runImport({
  db,
  source: "synthetic-indicators",
  read: syntheticSightings,
  importer: indicatorImporter(),
  locations: [],
  logger,
  now,
});
console.error(`synthetic indicators: ${iocOutcome.counts.added} in ${(iocOutcome.durationMs / 1000).toFixed(1)} s`);
console.error(`indicators: ${await count("indicators")}`);
await close();
console.log(values.out);
