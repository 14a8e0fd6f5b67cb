import { createHash } from "node:crypto";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { loadPipelineConfig } from "../server/pipeline/config";
import { reasonKind } from "../server/feeds/toolkit/result";
import { readContext } from "./local-read-context";
import { getSource, SOURCES } from "../server/pipeline/source-catalogue";
import { resolveLocations } from "../server/pipeline/sync";

const USAGE = `Usage: npm run bench:parse -- [--mirror DIR] [--source NAME]... [--repeat N]

Reads every source found in the mirror (default ../shared/data) with the
reader the import uses, without a database, and prints per source the
records accepted, the rejections per reason, a SHA-256 over every result
in order (records and rejections alike) and the parse time (the best of
--repeat runs, default 1). Two checkouts that print the same digests parse
the snapshots identically; compare their times only within one run of
each on the same machine load.`;

const projectRoot = resolve(import.meta.dirname, "..");
const { values } = parseArgs({
  options: {
    mirror: { type: "string" },
    source: { type: "string", multiple: true },
    repeat: { type: "string" },
    help: { type: "boolean", short: "h" },
  },
});
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}
const mirrorDir = resolve(values.mirror ?? process.env.THREAT_RADAR_DATA_DIR ?? resolve(projectRoot, "../shared/data"));
const repeat = Math.max(1, Number(values.repeat ?? 1));
const config = loadPipelineConfig({});

interface ParseMeasurement {
  accepted: number;
  rejected: Record<string, number>;
  digest: string;
  ms: number;
}

async function measure(name: string): Promise<ParseMeasurement> {
  const source = getSource(name)!;
  const ctx = readContext(name, resolveLocations(source, config, mirrorDir));
  const hash = createHash("sha256");
  const rejected: Record<string, number> = {};
  let accepted = 0;
  const started = performance.now();
  for await (const result of source.read(ctx)) {
    hash.update(JSON.stringify(result));
    hash.update("\n");
    if (result.ok) accepted += 1;
    else {
      const kind = reasonKind(result.reason);
      rejected[kind] = (rejected[kind] ?? 0) + 1;
    }
  }
  return { accepted, rejected, digest: hash.digest("hex").slice(0, 16), ms: performance.now() - started };
}

const names = SOURCES.filter((s) => !values.source || values.source.includes(s.name))
  .filter((s) => resolveLocations(s, config, mirrorDir).length > 0)
  .map((s) => s.name);
for (const name of names) {
  let best: ParseMeasurement | null = null;
  for (let run = 0; run < repeat; run += 1) {
    const measured = await measure(name);
    if (best !== null && best.digest !== measured.digest) throw new Error(`${name}: two runs gave different results`);
    if (best === null || measured.ms < best.ms) best = measured;
  }
  const rejectedTotal = Object.values(best!.rejected).reduce((sum, n) => sum + n, 0);
  console.log(
    JSON.stringify({
      source: name,
      accepted: best!.accepted,
      rejected: rejectedTotal,
      digest: best!.digest,
      ms: Math.round(best!.ms),
      reasons: best!.rejected,
    }),
  );
}
