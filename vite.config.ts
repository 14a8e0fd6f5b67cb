import react from "@vitejs/plugin-react";
import { defineConfig, type Plugin } from "vite";
import { configDefaults } from "vitest/config";
import { buildId } from "./scripts/build-id.ts";

/**
 * Gives every client build an id and writes it next to the Vite manifest, so
 * the server can answer `builds/latest.json` and clients can notice a new
 * deployment (the id: scripts/build-id.ts).
 */
function buildInfo(): Plugin {
  return {
    name: "threat-radar:build-info",
    apply: "build",
    generateBundle() {
      if (this.environment.config.build.ssr) return;
      const info = { id: buildId(process.env.BUILD_ID), timestamp: Date.now() };
      this.emitFile({ type: "asset", fileName: ".vite/build.json", source: JSON.stringify(info) });
    },
  };
}

/** The server's entry points: the process, its worker threads, its child process, the SSR renderer and the backup command. */
const SERVER_ENTRIES = {
  index: "server/index.ts",
  entry: "server/ssr/entry.tsx",
  "read-worker": "server/db/sqlite/read-worker.ts",
  "extract-worker": "server/ioc/extract-worker.ts",
  "import-process": "server/pipeline/import-process.ts",
  // Compiled too, so a container or a service without the dev install can run `node dist/server/backup.js FILE`.
  backup: "scripts/backup.ts",
};

/** Integration tests that also run on PostgreSQL (project integration-pg); tests/integration/README.md lists the others and why. */
const POSTGRES_INTEGRATION_TESTS = [
  "tests/integration/cve-radar/{list,detail,detail-sections,epss-history,exports,past-the-end,suggest,postgres-plans}.test.ts",
  "tests/integration/ioc-radar/{list,detail,exports,lookup,fuzz,stats-table,postgres-plans}.test.ts",
  "tests/integration/shell/{pages,errors,metrics,route-validation,serving,endpoints,process,start-up,roles}.test.{ts,tsx}",
  "tests/integration/{home/home,bench/load-mix}.test.ts",
  "tests/integration/db/signed-counts.test.ts",
  "tests/integration/pipeline/{cli,download,egress-proxy,epss,indicator-family-pick,indicator-stats,ioc-sources,misp-feed,records,snapshots,stats-change}.test.ts",
  // Compares SQLite and PostgreSQL side by side: it needs both global setups.
  "tests/integration/parity/*.test.ts",
];

export default defineConfig(({ isSsrBuild }) => ({
  plugins: [react(), buildInfo()],
  publicDir: "public",
  build: isSsrBuild
    ? {
        outDir: "dist/server",
        emptyOutDir: true,
        target: "node22",
        rollupOptions: {
          // Every entry point of the server, emitted flat as dist/server/<name>.js: the
          // worker threads and the import process are found next to their caller by name
          // (server/runtime/entry-file.ts), so chunks stay in the same folder too.
          input: SERVER_ENTRIES,
          output: { entryFileNames: "[name].js", chunkFileNames: "[name]-[hash].js" },
        },
      }
    : {
        outDir: "dist/client",
        emptyOutDir: true,
        manifest: true,
        rollupOptions: { input: "client/entry.tsx" },
      },
  ssr: {
    noExternal: isSsrBuild ? ["echarts", "zrender"] : [],
  },
  test: {
    projects: [
      { extends: true, test: { name: "unit", include: ["tests/unit/**/*.test.{ts,tsx}"] } },
      {
        extends: true,
        test: {
          name: "integration",
          include: ["tests/integration/**/*.test.{ts,tsx}"],
          // PostgreSQL's own plans (SQLite's are held by query-plans.test.ts): integration-pg only.
          exclude: [...configDefaults.exclude, "tests/integration/parity/**", "tests/integration/**/postgres-plans.test.ts"],
          globalSetup: ["tests/integration/setup/snapshot-database.ts"],
          setupFiles: ["tests/integration/setup/statement-plans.ts"],
          testTimeout: 120_000,
          hookTimeout: 300_000,
        },
      },
      {
        // The same integration tests on PostgreSQL (tests/integration/README.md says which run and why the others do not).
        extends: true,
        test: {
          name: "integration-pg",
          include: POSTGRES_INTEGRATION_TESTS,
          env: { THREAT_RADAR_TEST_DB: "postgres" },
          globalSetup: ["tests/integration/setup/snapshot-database.ts", "tests/integration/setup/postgres.ts"],
          testTimeout: 120_000,
          hookTimeout: 300_000,
        },
      },
      {
        extends: true,
        test: {
          name: "e2e",
          include: ["tests/e2e/**/*.test.ts"],
          globalSetup: ["tests/integration/setup/snapshot-database.ts"],
          testTimeout: 60_000,
          hookTimeout: 180_000,
          // What a page shows after a request (suggestions, a filtered list) can take over expect.poll's
          // default second on a loaded CI machine; these tests check what appears, not how fast.
          expect: { poll: { timeout: 10_000 } },
          // Files run in parallel: each starts its own server (own port, own
          // temporary database, tests/e2e/helpers/site.ts) and browser, and the
          // snapshot database they share is only read.
        },
      },
    ],
  },
}));
