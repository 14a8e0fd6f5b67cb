import type { Readable } from "node:stream";
import { parseCveId } from "../../../shared/cve/cve-id";
import type { EpssScore } from "../../../shared/types/cve";
import { accepted, rejected, type ParseResult } from "../format";
import { readLines } from "../feed-file";

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
export async function* parseEpssCsv(
  stream: Readable,
  name: string,
  options: EpssFileOptions,
): AsyncGenerator<ParseResult<EpssScore>> {
  let modelVersion: string | null = null;
  let scoreDate = options.fallbackScoreDate;
  let dataSeen = false;
  for await (const { line, lineNumber } of readLines(stream)) {
    const text = line.trim();
    if (text === "") continue;
    const location = `${name}:${lineNumber}`;
    if (text.startsWith("#")) {
      if (!dataSeen) {
        const meta = parseMetadata(text);
        modelVersion = meta.modelVersion ?? modelVersion;
        scoreDate = meta.scoreDate ?? scoreDate;
      }
      continue;
    }
    if (HEADER.test(text)) continue;
    if (!scoreDate) throw new Error(`${name}: no score_date line and no file date to fall back on`);
    dataSeen = true;
    const [cve, epss, percentile, ...extra] = text.split(text.includes(";") ? ";" : ",");
    const cveId = cve ? parseCveId(cve) : null;
    if (!cveId) {
      yield rejected(location, `${JSON.stringify(cve)} is not a CVE id`);
      continue;
    }
    const score = probability(epss);
    if (score === null || extra.length > 0) {
      yield rejected(location, `${cveId}: expected "cve,epss,percentile" with values in 0..1`);
      continue;
    }
    const rank = probability(percentile);
    if (percentile !== undefined && percentile.trim() !== "" && rank === null) {
      yield rejected(location, `${cveId}: percentile ${JSON.stringify(percentile)} is not in 0..1`);
      continue;
    }
    yield accepted({ cveId, scoreDate, epss: score, percentile: rank, modelVersion });
  }
}

/** The date in a file name such as `epss_scores-2025-09-03.csv.gz`, if any. */
export function dateInFileName(name: string): string | null {
  const match = /(\d{4}-\d{2}-\d{2})/.exec(name.split(/[\\/]/).pop() ?? name);
  return match?.[1] ?? null;
}
