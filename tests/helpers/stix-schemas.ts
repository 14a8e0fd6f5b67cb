import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { DATA_DIR } from "./paths";

const SCHEMA_DIR = join(DATA_DIR, "stix2-schemas/schemas");
const BUNDLE_ID = "http://raw.githubusercontent.com/oasis-open/cti-stix2-json-schemas/stix2.1/schemas/common/bundle.json";

/**
 * A validator for STIX 2.1 bundles from the official JSON schemas. Every
 * schema carries an absolute `$id` and refers to the others by relative
 * paths ("../common/core.json"), so all of them are registered up front and
 * Ajv resolves each `$ref` against its schema's `$id`. Their patterns use escapes
 * (`\-`) that are invalid in Unicode mode, hence `unicodeRegExp: false`.
 */
export function stixBundleValidator(): ValidateFunction {
  const ajv = new Ajv2020({ strict: false, allErrors: true, unicodeRegExp: false });
  addFormats.default(ajv);
  // ajv-formats has no "idn-hostname" (used by domain-name): labels of any script, dot-separated, at most 253 characters.
  ajv.addFormat("idn-hostname", (value: string) => value.length <= 253 && /^(?!-)[^\s./:@]{1,63}(?:\.(?!-)[^\s./:@]{1,63})*\.?$/u.test(value));
  for (const folder of readdirSync(SCHEMA_DIR)) {
    for (const file of readdirSync(join(SCHEMA_DIR, folder)).filter((name) => name.endsWith(".json"))) {
      ajv.addSchema(JSON.parse(readFileSync(join(SCHEMA_DIR, folder, file), "utf8")) as object);
    }
  }
  const validate = ajv.getSchema(BUNDLE_ID);
  if (!validate) throw new Error(`No STIX bundle schema ${BUNDLE_ID}`);
  return validate;
}
