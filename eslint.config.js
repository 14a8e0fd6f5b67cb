// @ts-check
import js from "@eslint/js";
import tseslint from "typescript-eslint";
import reactHooks from "eslint-plugin-react-hooks";
import { importX, createNodeResolver } from "eslint-plugin-import-x";
import globals from "globals";

/**
 * The folders' allowed directions (CONTRIBUTING.md, "Boundaries"). Each zone
 * forbids `target` to import anything under `from` (minus `except`, relative
 * to `from`); an import that breaks one fails `npm run lint`.
 * tests/unit/tooling/boundaries.test.ts proves that each zone bites.
 */
// The HTTP layer and the entry points that wire everything together.
const HTTP = [
  "./server/api",
  "./server/http",
  "./server/loaders",
  "./server/ssr",
  "./server/syndication",
  "./server/app.ts",
  "./server/index.ts",
  "./server/cli",
];
export const BOUNDARY_ZONES = [
  { target: "./shared", from: ["./client", "./server"], message: "shared/ runs in the browser and on the server: it imports neither client/ nor server/." },
  { target: "./client", from: "./server", message: "client/ is the browser bundle: it never imports server/." },
  {
    target: "./server/feeds",
    from: "./server",
    except: ["./feeds"],
    message: "Parsers depend only on server/feeds (the feed format, file readers, record types) and shared/; the pipeline calls them, not the reverse.",
  },
  {
    target: "./server/db",
    from: "./server",
    except: ["./db", "./runtime"],
    message: "The store (server/db) is the bottom layer: queries, services, the pipeline and HTTP import it, never the reverse.",
  },
  {
    target: ["./server/cve", "./server/ioc", "./server/home", "./server/sources", "./server/pipeline", "./server/feeds", "./server/runtime", "./server/config"],
    from: HTTP,
    message: "Queries, services and the pipeline do not import the HTTP layer (routers, middleware, pages, SSR, entry points); HTTP calls services.",
  },
  {
    target: ["./server/cve", "./server/ioc"],
    from: "./server/pipeline",
    message: "Queries read the store; what the pipeline and the pages share (constants, scoring) lives in server/cve or shared/.",
  },
  {
    target: ["./server/home", "./server/sources"],
    from: "./server/pipeline",
    except: ["./config.ts", "./source-catalogue.ts", "./engine/failure.ts"],
    message: "Source status reads the pipeline's configuration and source catalogue only, not its engine.",
  },
];

export default tseslint.config(
  // What git ignores (local data, scratch scripts, bench output) is not the project's code.
  { ignores: ["dist/**", "node_modules/**", "coverage/**", "public/**", "data/**", ".bench/**", ".scratch/**", "screenshots/**"] },
  js.configs.recommended,
  // The syntactic rule set, not the type-checked one: `tsc --noEmit` already
  // type-checks, and type-aware linting would triple the time of `npm run lint`.
  ...tseslint.configs.recommended,
  {
    files: ["**/*.{ts,tsx}"],
    plugins: { "react-hooks": reactHooks },
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
    rules: {
      ...reactHooks.configs.recommended.rules,
      // Control characters in a pattern are the point: inputs are checked or
      // stripped of them (query parameters, URLs, domains, feed fields).
      "no-control-regex": "off",
      // `for (const _ of …)` counts items; a leading underscore marks a value kept unused on purpose.
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
    },
  },
  {
    files: ["**/*.{ts,tsx}"],
    plugins: { "import-x": importX },
    settings: {
      "import-x/resolver-next": [createNodeResolver({ extensions: [".ts", ".tsx", ".js", ".json"] })],
      // no-cycle parses the imported modules itself: tell it they are TypeScript.
      "import-x/extensions": [".ts", ".tsx", ".js"],
      "import-x/parsers": { "@typescript-eslint/parser": [".ts", ".tsx"] },
    },
    rules: {
      "import-x/no-restricted-paths": ["error", { basePath: import.meta.dirname, zones: BOUNDARY_ZONES }],
      // No module may reach itself through its imports (type-only imports do not
      // count: they vanish from the build). A cycle is a boundary broken both ways.
      "import-x/no-cycle": ["error", { ignoreExternal: true }],
    },
  },
  {
    // Kysely<any> is Kysely's own idiom for code that runs against any schema
    // version (migrations, table builders, the dialect), which a typed
    // Database interface cannot describe.
    files: ["server/db/**/*.ts"],
    rules: { "@typescript-eslint/no-explicit-any": "off" },
  },
  {
    // Tests read untyped JSON bodies and raw feed records field by field.
    files: ["tests/**/*.ts"],
    rules: { "@typescript-eslint/no-explicit-any": "off" },
  },
);
