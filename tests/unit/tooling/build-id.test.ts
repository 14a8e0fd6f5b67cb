import { describe, expect, it } from "vitest";
import { buildId } from "../../../scripts/build-id";

describe("buildId", () => {
  it("keeps the id a release pipeline pins", () => {
    for (const id of ["3f2a1c9e", "0.2.0", "0.2.0+3f2a1c9", "ci-1234_a"]) expect(buildId(id)).toBe(id);
  });

  it("makes one up when BUILD_ID is unset or empty (a Dockerfile ARG with no value)", () => {
    const now = Date.UTC(2026, 10, 26);
    for (const value of [undefined, ""]) expect(buildId(value, now)).toMatch(new RegExp(`^${now.toString(36)}-[0-9a-f]{8}$`));
    expect(buildId(undefined)).not.toBe(buildId(undefined));
  });

  it("stops the build, naming BUILD_ID, on text that is not an id", () => {
    for (const value of ["${BUILD_ID:-}", "-leading-dash", "has space", "x".repeat(129), "</script>"]) {
      expect(() => buildId(value)).toThrow(/^BUILD_ID must be/);
    }
  });
});
