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

async function suggestions(db: Kysely<Database>, q: string): Promise<string[]> {
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
  const lower = q.toLowerCase();
  const lowerVendor = sql<string>`lower(vendor)`;
  const [vendors, products] = await Promise.all([
    db
      .selectFrom("cve_affected")
      .select((eb) => eb.fn.min("vendor").as("name"))
      .where(lowerVendor, ">=", lower)
      .where(lowerVendor, "<", prefixEnd(lower))
      .groupBy(lowerVendor)
      // Named orders: without one, which eight of the matches come back is up to the database.
      .orderBy(lowerVendor)
      .limit(SUGGEST_LIMIT)
      .execute(),
    db
      .selectFrom("cves")
      .select("product as name")
      .distinct()
      // LIKE wildcards (and PostgreSQL's escape, the backslash) in the input are dropped, not escaped:
      // SQLite's LIKE has no default escape character. Lowercased on both sides: SQLite's LIKE ignores
      // case, PostgreSQL's does not.
      .where(sql<string>`lower(product)`, "like", `${lower.replace(/[%_\\]/g, "")}%`)
      .orderBy("product")
      .limit(SUGGEST_LIMIT)
      .execute(),
  ]);
  return [...new Set([...vendors, ...products].map((row) => row.name).filter((name): name is string => Boolean(name)))].slice(0, SUGGEST_LIMIT);
}

/** `GET /suggest?q=`: CVE ids, vendors and products starting with what was typed, for the header search. */
export function suggestRoutes(db: Kysely<Database>, cached: VersionedCache): Router {
  const router = Router();
  router.get("/suggest", async (req, res) => {
    const params = validQuery(suggestSchema, req.originalUrl, res);
    if (!params) return;
    const list = await cached(`suggest|${params.q.toLowerCase()}`, () => suggestions(db, params.q));
    res.set("Cache-Control", "private, max-age=300").json({ suggestions: list });
  });
  return router;
}
