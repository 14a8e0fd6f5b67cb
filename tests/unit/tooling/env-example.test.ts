import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { envSchema, loadEnv } from "../../../server/config/env";
import { PROJECT_ROOT } from "../../helpers/paths";

/**
 * .env.example is the operator's list of every setting with its default
 * (compose reads it as .env, systemd as its EnvironmentFile): a variable the
 * server reads but the file omits, or a default the file misstates, is a
 * setting nobody finds.
 */

const example = readFileSync(resolve(PROJECT_ROOT, ".env.example"), "utf8");
/** `# NAME=value   # comment` lines: the value as the file shows it (empty when the default is none or computed). */
const listed = [...example.matchAll(/^# ([A-Z][A-Z0-9_<>]*)=(.*?)(?:[ \t]+#.*)?$/gm)].map(([, name, value]) => ({ name: name!, value: value! }));

// Read outside the server's schema: the feed pipeline's own (server/pipeline/config.ts), compose's, the build's, and the proxy's (undici).
const OTHER_VARIABLES = [
  "SYNC_ENABLED",
  "SYNC_MIRROR_DIR",
  "NVD_API_KEY",
  "SYNC_MISP_EVENTS_PER_RUN",
  "POSTGRES_PASSWORD",
  "BUILD_ID",
  "HTTPS_PROXY",
  "HTTP_PROXY",
  "NO_PROXY",
];
// The schema's default is for a development checkout; the file shows what npm start, npm run serve and the image set.
const SET_BY_THE_RUNNER = new Set(["NODE_ENV"]);

describe(".env.example", () => {
  it("lists every variable once", () => {
    const names = listed.map(({ name }) => name);
    expect(names.filter((name, index) => names.indexOf(name) !== index)).toEqual([]);
    for (const name of [...Object.keys(envSchema.shape), ...OTHER_VARIABLES]) expect(names, name).toContain(name);
  });

  it("shows each server variable's real default", () => {
    const defaults = loadEnv({}) as Record<string, unknown>;
    const shown = listed.filter(({ name, value }) => value !== "" && name in envSchema.shape && !SET_BY_THE_RUNNER.has(name));
    expect(shown.length).toBeGreaterThan(20);
    for (const { name, value } of shown) expect((loadEnv({ [name]: value }) as Record<string, unknown>)[name], name).toEqual(defaults[name]);
  });
});
