import { z } from "../query/zod";
import { CVE_PAGE_MAX, CVE_PAGE_SIZE_MAX, CVE_SORT_KEYS, CVE_STATES, SEVERITIES } from "./list-vocabulary";

/** The CVE list's query schema, for the server (the page, its payload and `/api/v1/cves`); the browser uses list-vocabulary.ts. */

export {
  CVE_LIST_KEYS,
  CVE_PAGE_MAX,
  CVE_PAGE_SIZE_DEFAULT,
  CVE_PAGE_SIZE_MAX,
  CVE_SORT_KEYS,
  CVE_STATES,
  cveListSearch,
  SEVERITIES,
  type CveSortKey,
  type Severity,
} from "./list-vocabulary";

const isoDay = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, "must be a date YYYY-MM-DD")
  .refine((day) => !Number.isNaN(Date.parse(day)), "must be a real date");
const flag = z.enum(["1", "true", "0", "false", ""]).transform((value) => value === "1" || value === "true");
const text = (max: number) => z.string().trim().max(max, `must be at most ${max} characters`);
const numberIn = (min: number, max: number) =>
  z.coerce.number().refine(Number.isFinite, "must be a number").min(min, `must be ≥ ${min}`).max(max, `must be ≤ ${max}`);

export const cveListParamsSchema = z.object({
  q: text(200).optional(),
  severity: z
    .string()
    .transform((value) =>
      value
        .split(",")
        .map((item) => item.trim().toLowerCase())
        .filter(Boolean),
    )
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
  per_page: z.coerce.number().int("must be a whole number").min(1, "must be ≥ 1").max(CVE_PAGE_SIZE_MAX, `must be ≤ ${CVE_PAGE_SIZE_MAX}`).optional(),
});

export type CveListParams = z.infer<typeof cveListParamsSchema>;
