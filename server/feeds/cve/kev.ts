import { z } from "zod";
import { parseCveId } from "../../../shared/cve/cve-id";
import type { KevEntry } from "./records";
import { csvRecords } from "../toolkit/csv";
import { accepted, rejected, type ParseResult } from "../toolkit/result";
import { peek, readText, type FeedInput } from "../toolkit/stream";

const isoDate = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, "must be YYYY-MM-DD");
const optionalText = z
  .string()
  .nullish()
  .transform((value) => (value ? value : null));

/** Field rules from cisagov/kev-data's known_exploited_vulnerabilities_schema.json. */
const entrySchema = z.object({
  cveID: z
    .string()
    .refine((value) => parseCveId(value) !== null, "not a CVE id")
    .transform((value) => parseCveId(value) ?? value),
  vendorProject: z.string(),
  product: z.string(),
  vulnerabilityName: z.string(),
  dateAdded: isoDate,
  shortDescription: z.string(),
  requiredAction: z.string(),
  dueDate: isoDate,
  knownRansomwareCampaignUse: optionalText,
  notes: optionalText,
  cwes: z.array(z.string()).nullish(),
});

const REQUIRED_COLUMNS = ["cveID", "vendorProject", "product", "dateAdded", "dueDate"];

function toEntry(raw: unknown, location: string): ParseResult<KevEntry> {
  const parsed = entrySchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return rejected(location, `${issue?.path.join(".") || "entry"}: ${issue?.message ?? "invalid"}`);
  }
  const e = parsed.data;
  return accepted({
    cveId: e.cveID,
    vendorProject: e.vendorProject,
    product: e.product,
    vulnerabilityName: e.vulnerabilityName,
    dateAdded: e.dateAdded,
    shortDescription: e.shortDescription,
    requiredAction: e.requiredAction,
    dueDate: e.dueDate,
    knownRansomwareCampaignUse: e.knownRansomwareCampaignUse,
    notes: e.notes,
    cwes: e.cwes ?? [],
  });
}

/**
 * The JSON catalogue. It is read whole: it is a 1–2 MB file of about 1,500
 * entries, the one CVE-side feed small enough for that, and its top level
 * must be checked before any entry counts.
 */
export async function* parseKevJson(input: FeedInput, name: string): AsyncGenerator<ParseResult<KevEntry>> {
  const text = await readText(input);
  let catalog: unknown;
  try {
    catalog = JSON.parse(text);
  } catch (error) {
    throw new Error(`${name}: not a JSON document (${(error as Error).message})`, { cause: error });
  }
  const vulnerabilities = (catalog as { vulnerabilities?: unknown } | null)?.vulnerabilities;
  if (!Array.isArray(vulnerabilities)) throw new Error(`${name}: no "vulnerabilities" array, not a KEV catalogue`);
  for (const [index, entry] of vulnerabilities.entries()) {
    yield toEntry(entry, `${name}#vulnerabilities[${index}]`);
  }
}

/** The CSV catalogue: the same fields as columns; `cwes` is comma-joined. */
export async function* parseKevCsv(input: FeedInput, name: string): AsyncGenerator<ParseResult<KevEntry>> {
  let checkedHeader = false;
  for await (const { row, record } of csvRecords(input)) {
    if (!checkedHeader) {
      const missing = REQUIRED_COLUMNS.filter((column) => !(column in record));
      if (missing.length > 0) throw new Error(`${name}: not a KEV CSV, missing column(s) ${missing.join(", ")}`);
      checkedHeader = true;
    }
    const cwes = (record.cwes ?? "")
      .split(",")
      .map((cwe) => cwe.trim())
      .filter(Boolean);
    yield toEntry({ ...record, cwes }, `${name}:row ${row}`);
  }
}

/** Picks the JSON or CSV reader from the first non-blank character. */
export async function* parseKev(input: FeedInput, name: string): AsyncGenerator<ParseResult<KevEntry>> {
  const { head, stream: whole } = await peek(input);
  const isJson = head.toString("utf8").trimStart().startsWith("{");
  yield* isJson ? parseKevJson(whole, name) : parseKevCsv(whole, name);
}
