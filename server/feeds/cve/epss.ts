import { parseCveId } from "../../../shared/cve/cve-id";
import type { EpssScore } from "./records";
import { readLines } from "../toolkit/lines";
import { accepted, rejected, type ParseResult } from "../toolkit/result";
import type { FeedInput } from "../toolkit/stream";

export interface EpssFileOptions {
  /** YYYY-MM-DD used when the file has no `score_date` comment (the file's own date). */
  fallbackScoreDate: string | null;
}

const HEADER = /^cve[,;]epss[,;]percentile$/i;

/** `#model_version:v2025.03.14,score_date:2025-09-03T00:00:00+0000` → its fields. */
function parseMetadata(line: string): { modelVersion: string | null; scoreDate: string | null } {
  const fields = new Map<string, string>();
  for (const part of line.replace(/^#/, "").split(",")) {
    const colon = part.indexOf(":");
    if (colon > 0) fields.set(part.slice(0, colon).trim(), part.slice(colon + 1).trim());
  }
  const scoreDate = fields.get("score_date")?.slice(0, 10) ?? null;
  return {
    modelVersion: fields.get("model_version") ?? null,
    scoreDate: scoreDate && /^\d{4}-\d{2}-\d{2}$/.test(scoreDate) ? scoreDate : null,
  };
}

function probability(text: string | undefined): number | null {
  if (text === undefined || text.trim() === "") return null;
  const value = Number(text);
  return Number.isFinite(value) && value >= 0 && value <= 1 ? value : null;
}

/**
 * FIRST's daily CSV (`#model_version…` comment, `cve,epss,percentile` header,
 * commas) and the semicolon variant without comment or header that API
 * crawlers write. The format has no quoting, so lines are split directly.
 */
export async function* parseEpssCsv(input: FeedInput, name: string, options: EpssFileOptions): AsyncGenerator<ParseResult<EpssScore>> {
  const file: EpssFileState = { name, modelVersion: null, scoreDate: options.fallbackScoreDate, dataSeen: false };
  for await (const lines of readLines(input)) {
    for (const { number, text } of lines) {
      const result = epssLine(file, text, `${name}:${number}`);
      if (result !== null) yield result;
    }
  }
}

/** What the lines before a data line said about the file. */
interface EpssFileState {
  name: string;
  modelVersion: string | null;
  scoreDate: string | null;
  dataSeen: boolean;
}

/** One line's score, its rejection, or null for a blank, comment or header line (a comment may update the file state). */
function epssLine(file: EpssFileState, line: string | null, location: string): ParseResult<EpssScore> | null {
  if (line === null) return rejected(location, "line too long");
  const text = line.trim();
  if (text === "") return null;
  if (text.startsWith("#")) {
    if (!file.dataSeen) {
      const meta = parseMetadata(text);
      file.modelVersion = meta.modelVersion ?? file.modelVersion;
      file.scoreDate = meta.scoreDate ?? file.scoreDate;
    }
    return null;
  }
  if (HEADER.test(text)) return null;
  const { scoreDate, modelVersion } = file;
  if (!scoreDate) throw new Error(`${file.name}: no score_date line and no file date to fall back on`);
  file.dataSeen = true;
  const [cve, epss, percentile, ...extra] = text.split(text.includes(";") ? ";" : ",");
  const cveId = cve ? parseCveId(cve) : null;
  if (!cveId) return rejected(location, `${JSON.stringify(cve)} is not a CVE id`);
  const score = probability(epss);
  if (score === null || extra.length > 0) return rejected(location, `${cveId}: expected "cve,epss,percentile" with values in 0..1`);
  const rank = probability(percentile);
  if (percentile !== undefined && percentile.trim() !== "" && rank === null) {
    return rejected(location, `${cveId}: percentile ${JSON.stringify(percentile)} is not in 0..1`);
  }
  return accepted({ cveId, scoreDate, epss: score, percentile: rank, modelVersion });
}

/** The date in a file name such as `epss_scores-2025-09-03.csv.gz`, if any. */
export function dateInFileName(name: string): string | null {
  const match = /(\d{4}-\d{2}-\d{2})/.exec(name.split(/[\\/]/).pop() ?? name);
  return match?.[1] ?? null;
}
