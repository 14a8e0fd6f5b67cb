// @ts-check
import js from "@eslint/js";
import tseslint from "typescript-eslint";
import reactHooks from "eslint-plugin-react-hooks";
import globals from "globals";

export default tseslint.config(
  { ignores: ["dist/**", "node_modules/**", "coverage/**", "public/**"] },
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
