import type { TrickestRecord } from "../../../shared/types/cve";
import { chunk, classifyByHash, insertRows, type Importer } from "../importer";

const ORIGIN = "trickest-poc";

/**
 * Trickest's per-CVE PoC lists: GitHub repositories and references become
 * exploit rows, the product / version / CWE badges become affected and CWE
 * rows of their own origin. CVEs without a CVE record are kept too: their
 * evidence is ready when the record arrives.
 */
export function trickestImporter(): Importer<TrickestRecord> {
  return {
    batchSize: 1_000,
    async writeBatch(trx, records, ctx) {
      const changed = (await classifyByHash(trx, ctx, records, (r) => r.cveId))
        .filter((c) => c.status !== "unchanged")
        .map((c) => c.record);
      if (changed.length === 0) return;
      for (const ids of chunk(
        changed.map((r) => r.cveId),
        500,
      )) {
        for (const table of ["cve_exploits", "cve_affected", "cve_cwes"] as const) {
          await trx.deleteFrom(table).where("cve_id", "in", ids).where("origin", "=", ORIGIN).execute();
        }
      }
      await insertRows(
        trx,
        "cve_exploits",
        changed.flatMap((r) => r.exploits.map((x) => ({ cve_id: r.cveId, origin: ORIGIN, url: x.url, kind: x.kind }))),
      );
      await insertRows(
        trx,
        "cve_affected",
        changed.flatMap((r) =>
          r.products.map((product) => ({
            cve_id: r.cveId,
            origin: ORIGIN,
            source: "trickest",
            vendor: null,
            product,
            default_status: null,
            // Trickest lists versions per CVE, not per product: they are
            // attached to every product, status unknown.
            versions: JSON.stringify(r.versions.map((version) => ({ version, status: "unknown" }))),
            cpes: "[]",
          })),
        ),
      );
      await insertRows(
        trx,
        "cve_cwes",
        changed.flatMap((r) =>
          r.weaknesses.map((w) => ({
            cve_id: r.cveId,
            origin: ORIGIN,
            source: w.source,
            cwe_id: w.cweId,
            description: w.description,
          })),
        ),
      );
      for (const record of changed) ctx.touched.add(record.cveId);
    },
  };
}
