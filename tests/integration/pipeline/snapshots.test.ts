import { createReadStream, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { createGunzip } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { computeCvePriority } from "../../../server/cve/priority";
import { sql } from "kysely";
import { dialectOf } from "../../../server/db/dialect";
import { loadPipelineConfig } from "../../../server/pipeline/config";
import type { ImportOutcome } from "../../../server/pipeline/run";
import { syncSource } from "../../../server/pipeline/sync";
import { utcTimestamp } from "../../helpers/source-files";
import { openSnapshotDatabase } from "../../helpers/test-database";
import { createTestDatabase, recordingLogger, snapshot, snapshotDir, type TestDatabase } from "../../helpers/feed-server";

/**
 * Imports the real snapshots once (all CVE JSON 5 years, KEV, EPSS, CWE and
 * Trickest's 2024 file; the shared snapshot database holds all Trickest
 * years) and checks them against PROVENANCE.md and against
 * the source files themselves, field by field.
 */
const NOW = new Date("2024-06-01T00:00:00Z");
const config = loadPipelineConfig({
  SOURCE_TRICKEST_POC_URL: snapshot("trickest-cve-poc", "trickest_cve_md_2024.jsonl.gz"),
});
const SOURCES = ["cve-json5", "cisa-kev", "epss", "trickest-poc", "mitre-cwe"] as const;

let db: TestDatabase;
const outcomes = new Map<string, ImportOutcome>();
const { logger } = recordingLogger();

async function findLine(path: string, needle: string): Promise<string> {
  const lines = createInterface({ input: createReadStream(path).pipe(createGunzip()), crlfDelay: Infinity });
  for await (const line of lines) if (line.includes(needle)) return line;
  throw new Error(`${needle} not in ${path}`);
}

beforeAll(async () => {
  db = await createTestDatabase();
  for (const name of SOURCES) {
    outcomes.set(name, await syncSource(name, { store: db.store, config, logger, mirrorDir: snapshotDir, now: () => NOW }));
  }
});

afterAll(async () => {
  await db?.dispose();
});

describe("importing the real snapshots", () => {
  it("imports every source without failures or rejected records", () => {
    for (const name of SOURCES) {
      expect(outcomes.get(name), name).toMatchObject({ status: "ok", error: null });
      expect(outcomes.get(name)?.counts.rejected, name).toBe(0);
    }
  });

  it("stores the record counts PROVENANCE.md states", async () => {
    expect(outcomes.get("cisa-kev")?.counts.added).toBe(1_404);
    expect(outcomes.get("epss")?.counts.added).toBe(360_142);
    expect(outcomes.get("cve-json5")?.counts.added).toBe(62_862);
    expect(outcomes.get("mitre-cwe")?.counts.added).toBe(964 + 409 + 54);
    // Trickest's 2024 file: 24,444 CVEs (167,093 over all years), one record each, none rejected.
    expect(outcomes.get("trickest-poc")?.counts).toEqual({ added: 24_444, updated: 0, unchanged: 0, rejected: 0, removed: 0 });
    expect(outcomes.get("trickest-poc")?.recordCount).toBe(24_444);
    const trickestCves = await db.db
      .selectFrom("cve_exploits")
      .select((eb) => eb.fn.count("cve_id").distinct().as("n"))
      .where("origin", "=", "trickest-poc")
      .executeTakeFirstOrThrow();
    // Every Trickest entry has at least one PoC or reference link (PROVENANCE.md, 2b).
    expect(Number(trickestCves.n)).toBe(24_444);

    const count = async (table: "cves" | "kev_entries" | "epss_scores") =>
      Number(
        (
          await db.db
            .selectFrom(table)
            .select((eb) => eb.fn.countAll().as("n"))
            .executeTakeFirstOrThrow()
        ).n,
      );
    // Every CVE any source knows is a row: the 62,862 records, and the ids only KEV, EPSS or Trickest name.
    const withRecord = await db.db
      .selectFrom("cves")
      .select((eb) => eb.fn.countAll().as("n"))
      .where("has_record", "=", 1)
      .executeTakeFirstOrThrow();
    expect(Number(withRecord.n)).toBe(62_862);
    const known = await sql<{ n: number }>`
      select count(*) as n from (
        select id from cves where has_record = 1 union select cve_id from kev_entries
        union select cve_id from epss_scores union select cve_id from cve_exploits where origin = 'trickest-poc')`.execute(db.db);
    expect(await count("cves")).toBe(Number(known.rows[0]?.n));
    expect(await count("cves")).toBeGreaterThan(62_862);
    expect(await count("kev_entries")).toBe(1_404);
    expect(await count("epss_scores")).toBe(360_142);

    const states = await db.db
      .selectFrom("cves")
      .select(["state", (eb) => eb.fn.countAll().as("n")])
      .where("has_record", "=", 1)
      .groupBy("state")
      .execute();
    expect(Object.fromEntries(states.map((s) => [s.state, Number(s.n)]))).toEqual({ PUBLISHED: 62_717, REJECTED: 145 });
    const rejected2024 = await db.db
      .selectFrom("cves")
      .select((eb) => eb.fn.countAll().as("n"))
      .where("state", "=", "REJECTED")
      .where("id", "like", "CVE-2024-%")
      .executeTakeFirstOrThrow();
    expect(Number(rejected2024.n)).toBe(104);
  });

  it("imported all 167,093 Trickest records of every year into the shared snapshot database", async () => {
    const shared = openSnapshotDatabase();
    try {
      const row = await shared.db.selectFrom("sources").selectAll().where("name", "=", "trickest-poc").executeTakeFirstOrThrow();
      expect(row).toMatchObject({ status: "ok", added: 167_093, updated: 0, unchanged: 0, rejected: 0, record_count: 167_093 });
    } finally {
      await shared.close();
    }
  });

  it("keeps a REJECTED record with its rejection reason", async () => {
    const row = await db.db.selectFrom("cves").selectAll().where("id", "=", "CVE-2024-10686").executeTakeFirstOrThrow();
    expect(row.state).toBe("REJECTED");
    expect(row.description).toMatch(/^\*\* REJECT \*\*/);
    expect(row.priority_score).toBe(0);
  });

  it("matches CVE-2024-3400 field by field with the CVE JSON 5 and KEV files", async () => {
    const source = JSON.parse(await findLine(snapshot("cve-json5-vulnrichment", "vulnrichment_cve5_2024.jsonl.gz"), '"cveId":"CVE-2024-3400"'));
    const kevEntry = JSON.parse(readFileSync(snapshot("cisa-kev", "known_exploited_vulnerabilities.json"), "utf8")).vulnerabilities.find(
      (v: { cveID: string }) => v.cveID === "CVE-2024-3400",
    );
    const cve = await db.db.selectFrom("cves").selectAll().where("id", "=", "CVE-2024-3400").executeTakeFirstOrThrow();

    expect(cve.title).toBe(source.containers.cna.title);
    expect(cve.date_reserved).toBe(utcTimestamp(source.cveMetadata.dateReserved));
    expect(cve.date_published).toBe(utcTimestamp(source.cveMetadata.datePublished));
    expect(cve.date_updated).toBe(utcTimestamp(source.cveMetadata.dateUpdated));
    expect(cve.assigner_short_name).toBe(source.cveMetadata.assignerShortName);
    expect(cve.description).toBe(source.containers.cna.descriptions[0].value);
    expect(cve.vendor).toBe("Palo Alto Networks");
    expect(cve.product).toBe("PAN-OS");

    expect(kevEntry.dateAdded).toBe("2024-04-12");
    expect(cve.kev).toBe(1);
    expect(cve.kev_date_added).toBe(kevEntry.dateAdded);
    expect(cve.kev_due_date).toBe(kevEntry.dueDate);
    expect(cve.kev_ransomware).toBe(kevEntry.knownRansomwareCampaignUse === "Known" ? 1 : 0);
    const kev = await db.db.selectFrom("kev_entries").selectAll().where("cve_id", "=", "CVE-2024-3400").executeTakeFirstOrThrow();
    expect(kev).toMatchObject({
      vendor_project: kevEntry.vendorProject,
      product: kevEntry.product,
      required_action: kevEntry.requiredAction,
      known_ransomware_use: kevEntry.knownRansomwareCampaignUse,
      notes: kevEntry.notes,
    });
    expect(JSON.parse(kev.cwes)).toEqual(kevEntry.cwes);

    const cisa = source.containers.adp.find((a: { providerMetadata: { shortName: string } }) => a.providerMetadata.shortName === "CISA-ADP");
    const options = Object.assign({}, ...cisa.metrics.find((m: { other?: { type: string } }) => m.other?.type === "ssvc").other.content.options);
    const ssvc = await db.db.selectFrom("cve_ssvc").selectAll().where("cve_id", "=", "CVE-2024-3400").execute();
    expect(ssvc).toHaveLength(1);
    expect(ssvc[0]).toMatchObject({
      source: "cisa-adp",
      exploitation: options.Exploitation,
      automatable: options.Automatable,
      technical_impact: options["Technical Impact"],
      version: "2.0.3",
      role: "CISA Coordinator",
    });

    const expectedCvss = [
      ...source.containers.cna.metrics
        .filter((m: { cvssV3_1?: unknown }) => m.cvssV3_1)
        .map((m: { cvssV3_1: { vectorString: string; baseScore: number } }) => ({
          source: "cna",
          version: "3.1",
          vector: m.cvssV3_1.vectorString,
          score: m.cvssV3_1.baseScore,
        })),
    ];
    const cvss = await db.db.selectFrom("cve_cvss").select(["source", "version", "vector", "score"]).where("cve_id", "=", "CVE-2024-3400").execute();
    expect(cvss).toEqual(expectedCvss);
    expect(cvss[0]?.vector).toBe("CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:C/C:H/I:H/A:H");
    expect(cve).toMatchObject({ cvss_score: 10, cvss_severity: "CRITICAL", cvss_version: "3.1", cvss_source: "cna" });

    const cpes = await db.db.selectFrom("cve_affected").select(["cpes"]).where("cve_id", "=", "CVE-2024-3400").where("source", "=", "cisa-adp").execute();
    expect(cpes.flatMap((row) => JSON.parse(row.cpes))).toEqual(cisa.affected.flatMap((a: { cpes: string[] }) => a.cpes));
  });

  it("copies EPSS, exploits and CWE names for CVE-2024-3400 and ranks it from that evidence", async () => {
    const cve = await db.db.selectFrom("cves").selectAll().where("id", "=", "CVE-2024-3400").executeTakeFirstOrThrow();
    const epssLine = (await findLine(snapshot("epss", "emba_epss_CVE_all_years_2026-08-16.csv.gz"), "CVE-2024-3400;")).split(";");
    expect(cve.epss).toBe(Number(epssLine[1]));
    expect(cve.epss_percentile).toBe(Number(epssLine[2]));
    expect(cve.epss_date).toBe("2026-08-16");
    expect(cve.exploit_count).toBeGreaterThan(10);

    const names = await db.db
      .selectFrom("cve_cwes")
      .innerJoin("cwes", "cwes.id", "cve_cwes.cwe_id")
      .select(["cve_cwes.cwe_id", "cwes.name"])
      .where("cve_cwes.cve_id", "=", "CVE-2024-3400")
      .where("cve_cwes.origin", "=", "cve-json5")
      .orderBy("cve_cwes.cwe_id")
      .execute();
    expect(names).toEqual([
      { cwe_id: "CWE-20", name: "Improper Input Validation" },
      { cwe_id: "CWE-77", name: "Improper Neutralization of Special Elements used in a Command ('Command Injection')" },
    ]);

    const priority = computeCvePriority(
      {
        kev: { dateAdded: "2024-04-12", knownRansomwareUse: true },
        epss: { score: cve.epss ?? 0, percentile: cve.epss_percentile, date: cve.epss_date },
        exploitCount: cve.exploit_count,
        cvss: { score: 10, version: "3.1", source: "cna" },
        published: cve.date_published,
      },
      NOW,
    );
    expect(cve.priority_score).toBe(priority.score);
    expect(priority.score).toBeGreaterThan(95);
  });

  it("finds CVEs by full-text search over id, title, description and product", async () => {
    const byWord = await db.db
      .selectFrom("cves")
      .select("id")
      .where(dialectOf(db.db).cveTextMatch("GlobalProtect command injection", sql.ref("cves.seq"))!)
      .execute();
    expect(byWord.map((r) => r.id)).toContain("CVE-2024-3400");
    const byId = await db.db
      .selectFrom("cves")
      .select("id")
      .where(dialectOf(db.db).cveTextMatch("CVE-2024-3400", sql.ref("cves.seq"))!)
      .execute();
    expect(byId.map((r) => r.id)).toContain("CVE-2024-3400");
  });

  it("records each run in sources with counts and freshness", async () => {
    const rows = await db.db.selectFrom("sources").selectAll().orderBy("name").execute();
    const kev = rows.find((r) => r.name === "cisa-kev");
    expect(kev).toMatchObject({ status: "ok", added: 1_404, record_count: 1_404, last_error: null, newest_record_at: "2025-08-25" });
    expect(rows.find((r) => r.name === "epss")).toMatchObject({ newest_record_at: "2026-08-16", record_count: 360_142 });
  });

  it("re-importing the same files is idempotent: an unchanged file is skipped, unchanged records are not rewritten", async () => {
    for (const name of ["cve-json5", "cisa-kev", "epss"] as const) {
      const again = await syncSource(name, { store: db.store, config, logger, mirrorDir: snapshotDir, now: () => NOW });
      expect(again.status, name).toBe("not-modified");
      expect(again.counts, name).toEqual({ added: 0, updated: 0, unchanged: 0, rejected: 0, removed: 0 });
    }
    // The same catalogue written differently: read again, and every record found unchanged.
    const mirror = mkdtempSync(join(tmpdir(), "kev-mirror-"));
    try {
      const catalogue = JSON.parse(readFileSync(join(snapshotDir, "cisa-kev/known_exploited_vulnerabilities.json"), "utf8"));
      mkdirSync(join(mirror, "cisa-kev"));
      writeFileSync(join(mirror, "cisa-kev/known_exploited_vulnerabilities.json"), JSON.stringify(catalogue, null, 1));
      const reread = await syncSource("cisa-kev", { store: db.store, config, logger, mirrorDir: mirror, now: () => NOW });
      expect(reread.status).toBe("ok");
      expect(reread.counts).toEqual({ added: 0, updated: 0, unchanged: 1_404, rejected: 0, removed: 0 });
    } finally {
      rmSync(mirror, { recursive: true, force: true });
    }
    const cve = await db.db.selectFrom("cves").select("priority_score").where("id", "=", "CVE-2024-3400").executeTakeFirstOrThrow();
    expect(cve.priority_score).toBeGreaterThan(95);
  });
});
