import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadPipelineConfig } from "../../../server/pipeline/config";
import { syncSource } from "../../../server/pipeline/sync";
import { createTestDatabase, recordingLogger, writeTarGz, type TestDatabase } from "../../helpers/feed-server";

/**
 * An indicator's threat type and family come from its newest sighting that
 * names one. Maltrail lists an address in several families' files, undated,
 * so those sightings tie: the tie must be broken the same way on every
 * import and on both dialects (it was not: on the full snapshot import
 * SQLite stored sliver for 194.233.73.173 and PostgreSQL adaptix_c2).
 */
const dir = mkdtempSync(join(tmpdir(), "threat-radar-family-pick-"));
const { logger } = recordingLogger();
let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db?.dispose();
  rmSync(dir, { recursive: true, force: true });
});

async function importTrails(name: string, files: Record<string, string[]>, day: string) {
  const path = join(dir, name);
  await writeTarGz(
    path,
    Object.entries(files).map(([file, lines]) => ({ name: `maltrail-master/trails/static/${file}`, content: `${lines.join("\n")}\n` })),
  );
  return syncSource("maltrail", {
    store: db.store,
    config: loadPipelineConfig({ SOURCE_MALTRAIL_URL: path }),
    logger,
    mirrorDir: null,
    now: () => new Date(`${day}T12:00:00Z`),
  });
}

async function picked(value: string) {
  return db.db.selectFrom("indicators").select(["threat_type", "malware_family"]).where("value", "=", value).executeTakeFirstOrThrow();
}

describe("an indicator's threat type and family when its newest sightings tie", () => {
  it("takes the first name in byte order, whatever order the files come in", async () => {
    const first = await importTrails(
      "first.tar.gz",
      {
        "malware/sliver.txt": ["198.51.100.7", "198.51.100.8"],
        "malicious/mythic.txt": ["198.51.100.7"],
        "malware/adaptix_c2.txt": ["198.51.100.7", "198.51.100.8"],
      },
      "2026-08-01",
    );
    expect(first).toMatchObject({ status: "ok", counts: { added: 5 } });
    expect(await picked("198.51.100.7")).toEqual({ threat_type: "malicious", malware_family: "adaptix_c2" });
    expect(await picked("198.51.100.8")).toEqual({ threat_type: "malware", malware_family: "adaptix_c2" });

    // The same trails in the other order, and a new file naming the second address: its sightings are
    // newer than the first run's, so the new file's family wins there.
    const second = await importTrails(
      "second.tar.gz",
      {
        "malware/adaptix_c2.txt": ["198.51.100.7", "198.51.100.8"],
        "malicious/mythic.txt": ["198.51.100.7"],
        "malware/sliver.txt": ["198.51.100.7", "198.51.100.8"],
        "malware/zloader.txt": ["198.51.100.8"],
      },
      "2026-08-02",
    );
    expect(second).toMatchObject({ status: "ok", counts: { added: 1 } });
    expect(await picked("198.51.100.7")).toEqual({ threat_type: "malicious", malware_family: "adaptix_c2" });
    expect(await picked("198.51.100.8")).toEqual({ threat_type: "malware", malware_family: "zloader" });
  });
});
