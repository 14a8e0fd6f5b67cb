import { z } from "../query/zod";
import { INDICATOR_TYPES } from "../ioc/types";
import { IOC_PAGE_MAX, IOC_PAGE_SIZE_MAX, IOC_SORT_KEYS, SEEN_WINDOWS, type SeenWindow } from "./list-vocabulary";

/** The IOC list's query schema, for the server (the page, its payload and `/api/v1/iocs`); the browser uses list-vocabulary.ts. */

export {
  IOC_LIST_KEYS,
  IOC_PAGE_MAX,
  IOC_PAGE_SIZE_DEFAULT,
  IOC_PAGE_SIZE_MAX,
  IOC_SORT_KEYS,
  iocListSearch,
  SEEN_WINDOWS,
  type IocSortKey,
  type SeenWindow,
} from "./list-vocabulary";

const SEEN_KEYS = Object.keys(SEEN_WINDOWS) as [SeenWindow, ...SeenWindow[]];

const text = (max: number) => z.string().trim().max(max, `must be at most ${max} characters`);
const label = (max: number) => text(max).regex(/^[^\u0000-\u001f]*$/, "must not contain control characters");

export const iocListParamsSchema = z.object({
  q: text(200).optional(),
  type: z
    .string()
    .transform((value) =>
      value
        .split(",")
        .map((item) => item.trim().toLowerCase())
        .filter(Boolean),
    )
    .pipe(z.array(z.enum(INDICATOR_TYPES as [string, ...string[]], { message: `must be among ${INDICATOR_TYPES.join(", ")}` })))
    .optional(),
  threat_type: label(80).optional(),
  malware: label(120).optional(),
  tag: label(120).optional(),
  source: z
    .string()
    .trim()
    .regex(/^[a-z0-9][a-z0-9._-]{0,63}$/, "must be a source name like feodotracker")
    .optional(),
  /** Indicators on this host (URLs, e-mail addresses, ip:port, and the host itself). */
  host: label(255).optional(),
  /** Indicators under this registrable domain. */
  domain: label(255).optional(),
  seen: z.enum(SEEN_KEYS, { message: `must be one of ${SEEN_KEYS.join(", ")}` }).optional(),
  sort: z.enum(IOC_SORT_KEYS, { message: `must be one of ${IOC_SORT_KEYS.join(", ")}` }).optional(),
  dir: z.enum(["asc", "desc"], { message: "must be asc or desc" }).optional(),
  page: z.coerce.number().int("must be a whole number").min(1, "must be ≥ 1").max(IOC_PAGE_MAX, `must be ≤ ${IOC_PAGE_MAX}`).optional(),
  per_page: z.coerce.number().int("must be a whole number").min(1, "must be ≥ 1").max(IOC_PAGE_SIZE_MAX, `must be ≤ ${IOC_PAGE_SIZE_MAX}`).optional(),
});

export type IocListParams = z.infer<typeof iocListParamsSchema>;

/** Blocklists take the list's filters plus the one type they list. */
export const blocklistParamsSchema = iocListParamsSchema.omit({ type: true, sort: true, dir: true, page: true, per_page: true }).extend({
  type: z.enum(INDICATOR_TYPES as [string, ...string[]], { message: `is required, one of ${INDICATOR_TYPES.join(", ")}` }),
});
