import { sql } from "kysely";
import type { TrickestRecord } from "../../feeds/cve/records";
import { displayName } from "../../cve/display-name";
import { refreshEvidenceDerived, TOUCHED_CVES } from "../derived";
import { contentHash, type Importer } from "../engine/importer";
import type { StagingOut } from "../engine/staging";
import { classifyStaged, replaceChildRows, saveStagedHashes, stagedRecordTable, type ChildTable } from "../engine/staged-records";
import { AFFECTED_ROWS, countHashes, CWE_ROWS } from "./cve-records-import";

const ORIGIN = "trickest-poc";

const PAGES = stagedRecordTable("trickest_pages", []);

const CHILDREN: readonly ChildTable[] = [
  {
    table: "cve_exploits",
    columns: [
      ["url", "text"],
      ["kind", "text"],
    ],
    distinct: true,
  },
  AFFECTED_ROWS,
  { table: "cve_version_lists", columns: [["versions", "text"]] },
  CWE_ROWS,
];

function stage(record: TrickestRecord, out: StagingOut, rec: number): void {
  out.row("trickest_pages", [rec, record.cveId, contentHash(record)]);
  for (const exploit of record.exploits) out.row("cve_exploits", [rec, exploit.url, exploit.kind]);
  // Trickest lists versions per CVE, not per product: the list (status unknown) is stored once for the
  // record and shown with every product (a CVE can name hundreds of products beside one long list).
  let products = 0;
  for (const name of record.products) {
    const product = displayName(name);
    if (product === null) continue;
    out.row("cve_affected", [rec, "trickest", null, product, null, "[]", "[]"]);
    products += 1;
  }
  if (products > 0 && record.versions.length > 0) {
    out.row("cve_version_lists", [rec, JSON.stringify(record.versions.map((version) => ({ version, status: "unknown" })))]);
  }
  for (const w of record.weaknesses) out.row("cve_cwes", [rec, w.source, w.cweId, w.description]);
}

/**
 * Trickest's per-CVE PoC lists: GitHub repositories and references become
 * exploit rows, the product / version / CWE badges affected and CWE rows of
 * their own origin. A CVE no other source knows gets its row here.
 */
export function trickestImporter(): Importer<TrickestRecord> {
  return {
    staging: [PAGES, ...CHILDREN.map(({ table, columns }) => ({ name: table, columns: [["rec", "integer"] as const, ...columns] })), TOUCHED_CVES],
    stage,
    async merge(ctx) {
      await classifyStaged(ctx.store, ctx, "trickest_pages");
      await ctx.commit(async (trx) => {
        for (const child of CHILDREN) await replaceChildRows(trx, child, ORIGIN);
        await sql`insert into ${sql.table("staging.touched_cves")} (id) select record_key from ${sql.table("staging.changed")}`.execute(trx);
        await saveStagedHashes(trx, ctx.source, "trickest_pages");
        // Trickest's pages give exploits; their products and CWEs are not copied into `cves`.
        await refreshEvidenceDerived(trx, ctx.now, ["exploits"]);
      });
    },
    countRecords: countHashes,
  };
}
