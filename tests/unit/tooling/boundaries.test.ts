import { fileURLToPath } from "node:url";
import { ESLint } from "eslint";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../..", import.meta.url));
const eslint = new ESLint({ cwd: ROOT });

/** The rule ids ESLint reports for `code` as if it were the file at `filePath` (relative to the repository). */
async function ruleIdsFor(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: `${ROOT}/${filePath}` });
  return (result?.messages ?? []).map((message) => message.ruleId ?? message.message);
}

// Each case imports a real module, so a resolver that stopped resolving
// (which makes the rule silently pass) fails the "allowed" cases' twins here.
// The first lint loads the config and the resolver: allow it more than the default 5 s.
describe("npm run lint enforces the folder boundaries", { timeout: 60_000 }, () => {
  it.each([
    ["shared imports client", "shared/ioc/fixture.ts", 'import "../../client/runtime/bot-check";'],
    ["shared imports server", "shared/cve/fixture.ts", 'import "../../server/cve/priority";'],
    ["client imports server", "client/runtime/fixture.ts", 'import "../../server/db/schema";'],
    ["a parser imports the pipeline", "server/feeds/cve/fixture.ts", 'import "../../pipeline/run";'],
    ["the store imports a service", "server/db/fixture.ts", 'import "../ioc/service";'],
    ["a service imports an HTTP router", "server/ioc/fixture.ts", 'import "../api/iocs";'],
    ["a query imports the pipeline", "server/cve/fixture.ts", 'import "../pipeline/derived";'],
  ])("fails when %s", async (_case, filePath, code) => {
    expect(await ruleIdsFor(filePath, code)).toContain("import-x/no-restricted-paths");
  });

  it.each([
    ["shared imports shared", "shared/ioc/fixture.ts", 'import { normalizeIndicator } from "./normalize";\nexport const f = normalizeIndicator;'],
    ["a parser imports the feed format", "server/feeds/cve/fixture.ts", 'import { accepted } from "../format";\nexport const f = accepted;'],
    ["the pipeline imports a parser", "server/pipeline/fixture.ts", 'import { parseEpssCsv } from "../feeds/cve/epss";\nexport const f = parseEpssCsv;'],
    ["HTTP imports a service", "server/api/fixture.ts", 'import type { IocService } from "../ioc/service";\nexport type S = IocService;'],
  ])("passes when %s", async (_case, filePath, code) => {
    expect(await ruleIdsFor(filePath, code)).toEqual([]);
  });

  it("fails on an import cycle", async () => {
    // shared/ioc/url.ts imports ./domain, so domain importing url closes a loop.
    const ids = await ruleIdsFor("shared/ioc/domain.ts", 'import { parseUrl } from "./url";\nexport const f = parseUrl;');
    expect(ids).toContain("import-x/no-cycle");
  });
});
