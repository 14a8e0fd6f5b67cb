import { createReadStream, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { createGunzip } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { computeCvePriority } from "../../../server/cve/priority";
import { sql, type RawBuilder, type Selectable } from "kysely";
import type { DatabaseHandle } from "../../../server/db/connection";
import { dialectOf } from "../../../server/db/dialect";
import type { Database } from "../../../server/db/schema";
import { EXPLOIT_KINDS } from "../../../server/cve/evidence";
import { loadPipelineConfig } from "../../../server/pipeline/config";
import { priorityOf } from "../../../server/pipeline/derived";
import { syncSource } from "../../../server/pipeline/sync";
import { utcTimestamp } from "../../helpers/source-files";
import { openSnapshotDatabase } from "../../helpers/test-database";
import { createTestDatabase, recordingLogger, snapshot, snapshotDir, type TestDatabase } from "../../helpers/feed-server";
import { SNAPSHOT_NOW } from "../setup/snapshot-database";

/**
 * Checks the real snapshots (all CVE JSON 5 years, KEV, EPSS, CWE and every
 * Trickest year) against PROVENANCE.md and against the source files
 * themselves, field by field. It reads the shared snapshot database of the
 * project's kind, which the global setup imported through the same sync path
 * (tests/integration/setup/snapshot-database.ts): importing them all again here
 * would cost minutes on PostgreSQL and prove nothing more. Only the re-import
 * test writes, to a fresh database of its own with the small sources.
 */
const NOW = new Date(SNAPSHOT_NOW);
const config = loadPipelineConfig({});
const SOURCES = ["cve-json5", "cisa-kev", "epss", "trickest-poc", "mitre-cwe"] as const;

let db: DatabaseHandle;
/** The last import of each source, as the sync recorded it. */
let runs: Map<string, Selectable<Database["sources"]>>;
const { logger } = recordingLogger();

async function findLine(path: string, needle: string): Promise<string> {
  const lines = createInterface({ input: createReadStream(path).pipe(createGunzip()), crlfDelay: Infinity });
  for await (const line of lines) if (line.includes(needle)) return line;
  throw new Error(`${needle} not in ${path}`);
}

beforeAll(async () => {
  db = openSnapshotDatabase();
  const rows = await db.db.selectFrom("sources").selectAll().execute();
  runs = new Map(rows.map((row) => [row.name, row]));
});

afterAll(async () => {
  await db?.close();
});

describe("importing the real snapshots", () => {
  it("imports every source without failures or rejected records", () => {
    for (const name of SOURCES) {
      expect(runs.get(name), name).toMatchObject({ status: "ok", last_error: null, rejected: 0 });
    }
  });

  it("stores the record counts PROVENANCE.md states", async () => {
    expect(runs.get("cisa-kev")?.added).toBe(1_404);
    expect(runs.get("epss")?.added).toBe(360_142);
    expect(runs.get("cve-json5")?.added).toBe(62_862);
    expect(runs.get("mitre-cwe")?.added).toBe(964 + 409 + 54);
    // Trickest: 167,093 CVEs over all years, one record each, none rejected.
    expect(runs.get("trickest-poc")).toMatchObject({ added: 167_093, updated: 0, unchanged: 0, rejected: 0, removed: 0, record_count: 167_093 });
    const trickestCves = await db.db
      .selectFrom("cve_exploits")
      .select((eb) => eb.fn.count("cve_id").distinct().as("n"))
      .where("origin", "=", "trickest-poc")
      .executeTakeFirstOrThrow();
    // Every Trickest entry has at least one PoC or reference link (PROVENANCE.md, 2b).
    expect(Number(trickestCves.n)).toBe(167_093);

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
        union select cve_id from epss_scores union select cve_id from cve_exploits where origin = 'trickest-poc') as known_ids`.execute(db.db);
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

  it("keeps every CVE's evidence columns and priority equal to its evidence, whichever source wrote them", async () => {
    const count = async (query: RawBuilder<unknown>) => (await query.execute(db.db)).rows.length;
    const kinds = sql.join([...EXPLOIT_KINDS]);
    const latest = sql`e.cve_id = c.id and e.score_date = (select max(m.score_date) from epss_scores m where m.cve_id = c.id)`;
    const { rows } = await sql<{ d: string }>`select max(score_date) as d from epss_scores`.execute(db.db);
    const weekAgo = new Date(Date.parse(`${rows[0]!.d}T00:00:00Z`) - 7 * 86_400_000).toISOString().slice(0, 10);
    const wrong = {
      kev: await count(sql`
        select c.id from cves c left join kev_entries k on k.cve_id = c.id
        where c.kev <> case when k.cve_id is null then 0 else 1 end
          or c.kev_date_added is distinct from k.date_added or c.kev_due_date is distinct from k.due_date`),
      epss: await count(sql`
        select c.id from cves c left join epss_scores e on ${latest}
        where c.epss is distinct from e.epss or c.epss_percentile is distinct from e.percentile or c.epss_date is distinct from e.score_date
          or c.epss_7d_ago is distinct from (
            select w.epss from epss_scores w where w.cve_id = c.id and w.score_date <= ${weekAgo} order by w.score_date desc limit 1)`),
      exploits: await count(sql`
        select c.id from cves c
        where c.exploit_count <> (select count(distinct x.url) from cve_exploits x where x.cve_id = c.id and x.kind in (${kinds}))`),
      cvss: await count(sql`
        select c.id from cves c
        where c.cvss_score is distinct from (
          select coalesce(m.computed_score, m.score) as s from cve_cvss m where m.cve_id = c.id order by s desc limit 1)`),
      priority: 0,
    };
    const cves = await db.db.selectFrom("cves").selectAll().execute();
    for (const cve of cves) if (cve.priority_score !== priorityOf(cve, NOW)) wrong.priority += 1;
    expect(cves.length).toBeGreaterThan(300_000);
    expect(wrong).toEqual({ kev: 0, epss: 0, exploits: 0, cvss: 0, priority: 0 });
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
    // A database of its own: the shared one is only read. KEV and CWE are the
    // small sources; the skip of an unchanged file is the same code for all.
    const own: TestDatabase = await createTestDatabase();
    const mirror = mkdtempSync(join(tmpdir(), "kev-mirror-"));
    try {
      const sync = (name: "cisa-kev" | "mitre-cwe", mirrorDir = snapshotDir) =>
        syncSource(name, { store: own.store, config, logger, mirrorDir, now: () => NOW });
      for (const name of ["cisa-kev", "mitre-cwe"] as const) expect((await sync(name)).status, name).toBe("ok");
      for (const name of ["cisa-kev", "mitre-cwe"] as const) {
        const again = await sync(name);
        expect(again.status, name).toBe("not-modified");
        expect(again.counts, name).toEqual({ added: 0, updated: 0, unchanged: 0, rejected: 0, removed: 0 });
      }
      // The same catalogue written differently: read again, and every record found unchanged.
      const catalogue = JSON.parse(readFileSync(join(snapshotDir, "cisa-kev/known_exploited_vulnerabilities.json"), "utf8"));
      mkdirSync(join(mirror, "cisa-kev"));
      writeFileSync(join(mirror, "cisa-kev/known_exploited_vulnerabilities.json"), JSON.stringify(catalogue, null, 1));
      const reread = await sync("cisa-kev", mirror);
      expect(reread.status).toBe("ok");
      expect(reread.counts).toEqual({ added: 0, updated: 0, unchanged: 1_404, rejected: 0, removed: 0 });
      const cve = await own.db.selectFrom("cves").select(["kev", "kev_date_added"]).where("id", "=", "CVE-2024-3400").executeTakeFirstOrThrow();
      expect(cve).toEqual({ kev: 1, kev_date_added: "2024-04-12" });
    } finally {
      rmSync(mirror, { recursive: true, force: true });
      await own.dispose();
    }
  });
});
