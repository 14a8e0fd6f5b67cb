import { createReadStream, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { createGunzip } from "node:zlib";
import { DATA_DIR } from "./paths";

/** A CVE JSON 5 record as far as the tests read it straight from the snapshot files. */
export interface RawCveRecord {
  cveMetadata: { cveId: string; state: string; datePublished?: string };
  containers: {
    cna?: { affected?: Array<{ vendor?: string; product?: string }> };
    adp?: Array<{ affected?: Array<{ vendor?: string; product?: string }> }>;
  };
}

/** Every CVE JSON 5 record of the snapshot, read independently of the product's parser. */
export async function* rawCveRecords(): AsyncGenerator<RawCveRecord> {
  const dir = join(DATA_DIR, "cve-json5-vulnrichment");
  for (const file of readdirSync(dir).filter((name) => name.endsWith(".jsonl.gz")).sort()) {
    const lines = createInterface({ input: createReadStream(join(dir, file)).pipe(createGunzip()), crlfDelay: Infinity });
    for await (const line of lines) if (line.trim()) yield JSON.parse(line) as RawCveRecord;
  }
}

export function kevCatalogue(): Array<{ cveID: string; dateAdded: string; dueDate: string; knownRansomwareCampaignUse: string }> {
  return JSON.parse(readFileSync(join(DATA_DIR, "cisa-kev/known_exploited_vulnerabilities.json"), "utf8")).vulnerabilities;
}
