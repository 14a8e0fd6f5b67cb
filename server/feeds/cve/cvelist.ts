import { parseCveId } from "../../../shared/cve/cve-id";
import { asObject, asString, objects } from "./shape";

/**
 * cvelistV5's change logs: `cves/delta.json` (the latest delta) and
 * `cves/deltaLog.json` (every delta of the last 30 days, newest first), each
 * delta `{fetchTime, new[], updated[]}` with entries `{cveId, githubLink}`.
 */
export interface CveDelta {
  fetchTime: string;
  changes: Array<{ cveId: string; githubLink: string | null }>;
}

export function parseDeltaDocument(text: string, name: string): CveDelta[] {
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (error) {
    throw new Error(`${name}: not a JSON document (${(error as Error).message})`, { cause: error });
  }
  const list = Array.isArray(document) ? document : [document];
  return list.map((item, index) => {
    const delta = asObject(item);
    const fetchTime = asString(delta?.fetchTime);
    if (!delta || !fetchTime) throw new Error(`${name}: delta ${index} has no fetchTime, not a cvelistV5 delta`);
    const changes = [...objects(delta.new), ...objects(delta.updated)].flatMap((entry) => {
      const cveId = typeof entry.cveId === "string" ? parseCveId(entry.cveId) : null;
      return cveId ? [{ cveId, githubLink: asString(entry.githubLink) }] : [];
    });
    return { fetchTime, changes };
  });
}

export interface DeltaPlan {
  /** True when the deltas provably include every change after the cursor. */
  covered: boolean;
  newestFetchTime: string | null;
  /** Changed records in the order they should be read (each id once, latest link). */
  changes: Array<{ cveId: string; githubLink: string | null }>;
}

/**
 * What changed after `cursor` (the fetchTime of the last delta already
 * applied). The deltas only prove completeness when the oldest of them is
 * not newer than the cursor; a lone delta.json newer than the cursor may sit
 * behind deltas nobody saw, so it is not enough to skip a full read.
 */
export function planFromDeltas(deltas: readonly CveDelta[], cursor: string | null): DeltaPlan {
  const ordered = [...deltas].sort((a, b) => Date.parse(a.fetchTime) - Date.parse(b.fetchTime));
  const newestFetchTime = ordered.at(-1)?.fetchTime ?? null;
  const oldest = ordered[0];
  const cursorMs = cursor === null ? Number.NaN : Date.parse(cursor);
  const covered = oldest !== undefined && !Number.isNaN(cursorMs) && Date.parse(oldest.fetchTime) <= cursorMs;
  const latest = new Map<string, string | null>();
  for (const delta of ordered) {
    if (Number.isNaN(cursorMs) || Date.parse(delta.fetchTime) <= cursorMs) continue;
    for (const change of delta.changes) {
      latest.delete(change.cveId);
      latest.set(change.cveId, change.githubLink);
    }
  }
  return {
    covered,
    newestFetchTime,
    changes: [...latest].map(([cveId, githubLink]) => ({ cveId, githubLink })),
  };
}

/** Path of a record inside the `cves/` folder: "2024/3xxx/CVE-2024-3400.json". */
export function recordPathInTree(cveId: string, githubLink: string | null): string {
  const fromLink = githubLink ? /\/cves\/(\d{4}\/\d+xxx\/CVE-[^/]+\.json)$/.exec(githubLink)?.[1] : undefined;
  if (fromLink) return fromLink;
  const [, year = "", number = "0"] = cveId.split("-");
  return `${year}/${Math.floor(Number(number) / 1000)}xxx/${cveId}.json`;
}

export function isDeltaFileName(name: string): boolean {
  return /(^|\/)(delta|deltaLog)\.json$/.test(name);
}
