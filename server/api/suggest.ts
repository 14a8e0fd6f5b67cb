import { Router } from "express";
import { sql, type Kysely } from "kysely";
import { z } from "zod";
import type { Database } from "../db/schema";
import type { VersionedCache } from "../db/versioned-cache";
import { validQuery } from "./validation";

export const SUGGEST_LIMIT = 8;
export const suggestSchema = z.object({ q: z.string().trim().min(2, "must be at least 2 characters").max(60, "must be at most 60 characters") });

/** Upper bound of a prefix range: every string starting with `prefix` sorts below it. */
const prefixEnd = (prefix: string) => `${prefix}\uffff`;

/** Lowercase as SQL's `lower()` does on both databases (SQLite's, and PostgreSQL's under the "C" collation): ASCII letters only. */
const lowerAscii = (text: string) => text.replace(/[A-Z]+/g, (letters) => letters.toLowerCase());

/**
 * Names in `column` of `table` whose lowercase starts with `lower`, read from
 * a prefix range of an index on `lower(column)` that also holds the name, so
 * from the index alone; spellings that differ only in case are one name. The
 * order is named: without one, which eight of the matches come back is up to
 * the database.
 */
function namesStartingWith(db: Kysely<Database>, table: "cves" | "cve_affected", column: "vendor" | "product", lower: string) {
  const lowered = sql<string>`lower(${sql.ref(column)})`;
  return db
    .selectFrom(table)
    .select((eb) => eb.fn.min<string | null>(sql.ref(column)).as("name"))
    .where(lowered, ">=", lower)
    .where(lowered, "<", prefixEnd(lower))
    .groupBy(lowered)
    .orderBy(lowered)
    .limit(SUGGEST_LIMIT);
}

/** Vendors, from `cve_affected_lower_vendor_idx` (migrations 0007 and 0020). */
export const vendorsStartingWith = (db: Kysely<Database>, lower: string) => namesStartingWith(db, "cve_affected", "vendor", lower);

/** Products, from `cves_lower_product_idx` (migration 0020). */
export const productsStartingWith = (db: Kysely<Database>, lower: string) => namesStartingWith(db, "cves", "product", lower);

export async function querySuggestions(db: Kysely<Database>, q: string): Promise<string[]> {
  if (/^cve-\d/i.test(q)) {
    const prefix = q.toUpperCase();
    const rows = await db
      .selectFrom("cves")
      .select("id")
      .where("id", ">=", prefix)
      .where("id", "<", prefixEnd(prefix))
      .orderBy("id", "desc")
      .limit(SUGGEST_LIMIT)
      .execute();
    return rows.map((row) => row.id);
  }
  const lower = lowerAscii(q);
  const [vendors, products] = await Promise.all([vendorsStartingWith(db, lower).execute(), productsStartingWith(db, lower).execute()]);
  // A vendor and a product may share a name, or differ from each other only in case: one suggestion, the vendor's spelling.
  const byLowered = new Map<string, string>();
  for (const { name } of [...vendors, ...products]) {
    const key = name && lowerAscii(name);
    if (key && !byLowered.has(key)) byLowered.set(key, name);
  }
  return [...byLowered.values()].slice(0, SUGGEST_LIMIT);
}

/** `GET /suggest?q=`: CVE ids, vendors and products starting with what was typed, for the header search. */
export function suggestRoutes(db: Kysely<Database>, cached: VersionedCache): Router {
  const router = Router();
  router.get("/suggest", async (req, res) => {
    const params = validQuery(suggestSchema, req.originalUrl, res);
    if (!params) return;
    const list = await cached(`suggest|${lowerAscii(params.q)}`, () => querySuggestions(db, params.q));
    res.set("Cache-Control", "private, max-age=300").json({ suggestions: list });
  });
  return router;
}
