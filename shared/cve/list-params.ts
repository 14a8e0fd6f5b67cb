import { z } from "../query/zod";
import { toSearch } from "../query/params";

/** The CVE list's query vocabulary, shared by the page, its payload and `/api/v1/cves`. */

export const CVE_SORT_KEYS = ["priority", "published", "updated", "cvss", "epss", "exploits", "kev_added", "kev_due"] as const;
export type CveSortKey = (typeof CVE_SORT_KEYS)[number];

export const SEVERITIES = ["critical", "high", "medium", "low", "none"] as const;
export type Severity = (typeof SEVERITIES)[number];

export const CVE_STATES = ["published", "rejected", "all"] as const;

export const CVE_PAGE_SIZE_DEFAULT = 25;
/** Hard maximum: a page never holds more rows than this. */
export const CVE_PAGE_SIZE_MAX = 100;
export const CVE_PAGE_MAX = 10_000;

const isoDay = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, "must be a date YYYY-MM-DD").refine((day) => !Number.isNaN(Date.parse(day)), "must be a real date");
const flag = z.enum(["1", "true", "0", "false", ""]).transform((value) => value === "1" || value === "true");
const text = (max: number) => z.string().trim().max(max, `must be at most ${max} characters`);
const numberIn = (min: number, max: number) =>
  z.coerce.number().refine(Number.isFinite, "must be a number").min(min, `must be ≥ ${min}`).max(max, `must be ≤ ${max}`);

export const cveListParamsSchema = z.object({
  q: text(200).optional(),
  severity: z
    .string()
    .transform((value) => value.split(",").map((item) => item.trim().toLowerCase()).filter(Boolean))
    .pipe(z.array(z.enum(SEVERITIES, { message: `must be among ${SEVERITIES.join(", ")}` })))
    .optional(),
  cvss_min: numberIn(0, 10).optional(),
  cvss_max: numberIn(0, 10).optional(),
  epss_min: numberIn(0, 1).optional(),
  epss_max: numberIn(0, 1).optional(),
  kev: flag.optional(),
  exploit: flag.optional(),
  vendor: text(120).optional(),
  product: text(120).optional(),
  cwe: z
    .string()
    .trim()
    .regex(/^(CWE-)?\d{1,5}$/i, "must be a CWE id like CWE-79")
    .transform((value) => `CWE-${value.replace(/^CWE-/i, "")}`)
    .optional(),
  published_from: isoDay.optional(),
  published_to: isoDay.optional(),
  updated_from: isoDay.optional(),
  updated_to: isoDay.optional(),
  state: z.enum(CVE_STATES).optional(),
  sort: z.enum(CVE_SORT_KEYS, { message: `must be one of ${CVE_SORT_KEYS.join(", ")}` }).optional(),
  dir: z.enum(["asc", "desc"]).optional(),
  page: z.coerce.number().int("must be a whole number").min(1, "must be ≥ 1").max(CVE_PAGE_MAX, `must be ≤ ${CVE_PAGE_MAX}`).optional(),
  per_page: z.coerce
    .number()
    .int("must be a whole number")
    .min(1, "must be ≥ 1")
    .max(CVE_PAGE_SIZE_MAX, `must be ≤ ${CVE_PAGE_SIZE_MAX}`)
    .optional(),
});

export type CveListParams = z.infer<typeof cveListParamsSchema>;

/** The query string of a CVE list view (stable order, defaults omitted). */
export function cveListSearch(params: CveListParams): string {
  return toSearch(cveListParamsSchema, params);
}
