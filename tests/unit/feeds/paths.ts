import { createReadStream } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { IocSighting } from "../../../server/feeds/ioc/sighting";
import type { ParseResult } from "../../../server/feeds/toolkit/result";

const projectRoot = fileURLToPath(new URL("../../..", import.meta.url));

/** The read-only real snapshots (see ../shared/data/PROVENANCE.md). */
export const dataDir = process.env.THREAT_RADAR_DATA_DIR ?? path.resolve(projectRoot, "../shared/data");

export function snapshot(...parts: string[]): string {
  return path.join(dataDir, ...parts);
}

export function fixture(name: string): string {
  return path.join(projectRoot, "tests/fixtures/ioc-feeds", name);
}

export function open(file: string): AsyncIterable<Buffer> {
  return createReadStream(file);
}

export interface Collected {
  records: IocSighting[];
  rejected: Array<{ location: string; reason: string }>;
}

export async function collect(results: AsyncIterable<ParseResult<IocSighting>>): Promise<Collected> {
  const records: IocSighting[] = [];
  const rejected: Collected["rejected"] = [];
  for await (const result of results) {
    if (result.ok) records.push(result.record);
    else rejected.push({ location: result.location, reason: result.reason });
  }
  return { records, rejected };
}

export function countBy<T>(items: readonly T[], key: (item: T) => string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const item of items) counts[key(item)] = (counts[key(item)] ?? 0) + 1;
  return counts;
}
