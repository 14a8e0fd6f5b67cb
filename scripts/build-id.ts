import { randomBytes } from "node:crypto";

/** A git sha, a version ("0.2.0", "0.2.0+3f2a1c9"), a CI run number: what a release pipeline pins. */
const BUILD_ID = /^[A-Za-z0-9][\w.+-]{0,127}$/;

/**
 * The id of a client build: BUILD_ID when set, so every node of a deployment
 * built apart serves one id; otherwise one made up for this build. An empty
 * value counts as unset (a Dockerfile's `ARG BUILD_ID` with no value passes
 * one), and anything else that is not an id stops the build naming the
 * variable: a compose file whose `${BUILD_ID}` was not interpolated once
 * shipped the literal text as the id.
 */
export function buildId(value: string | undefined, now = Date.now()): string {
  if (value === undefined || value === "") return `${now.toString(36)}-${randomBytes(4).toString("hex")}`;
  if (!BUILD_ID.test(value)) {
    throw new Error(`BUILD_ID must be 1–128 letters, digits, ".", "_", "+" or "-", starting with a letter or digit (got ${JSON.stringify(value)})`);
  }
  return value;
}
