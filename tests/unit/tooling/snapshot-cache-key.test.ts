import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { moduleClosure } from "../../integration/setup/module-closure";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const closure = moduleClosure(`${ROOT}tests/integration/setup/snapshot-database.ts`).map((file) => file.slice(ROOT.length));

// The snapshot database is rebuilt when a file of this closure changes: it
// must hold what the import runs, and nothing the import never loads.
describe("the snapshot database's cache key", () => {
  it.each([
    "server/pipeline/sync.ts",
    "server/pipeline/importers/indicators-import.ts",
    "server/feeds/cve/cve-json5.ts",
    "server/feeds/toolkit/result.ts",
    "server/feeds/toolkit/lines.ts",
    "server/db/migrations/0007-schema-v2.ts",
    "server/db/schema.ts",
    "server/cve/priority.ts",
    "shared/ioc/normalize.ts",
  ])("covers %s, which the import runs", (file) => {
    expect(closure).toContain(file);
  });

  it.each(["server/api/iocs.ts", "server/ioc/service.ts", "server/db/sqlite/read-pool.ts", "server/db/versioned-cache.ts", "shared/pages/home/HomePage.tsx"])(
    "ignores %s, which the import never loads",
    (file) => {
      expect(closure).not.toContain(file);
    },
  );
});
