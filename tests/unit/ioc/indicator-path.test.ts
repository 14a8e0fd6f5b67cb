import { describe, expect, it } from "vitest";
import { canonicalIndicatorPath } from "../../../shared/ioc/indicator-path";

describe("canonicalIndicatorPath", () => {
  it("maps every spelling of an indicator to one path", () => {
    for (const raw of ["evil[.]com", "EVIL.com", "evil(dot)com", "evil.com."]) {
      expect(canonicalIndicatorPath(raw), raw).toBe("/ioc-radar/evil.com");
    }
    expect(canonicalIndicatorPath("hxxp://Evil[.]com/A B")).toBeNull();
    expect(canonicalIndicatorPath("hxxp://Evil[.]com/A%20B")).toBe("/ioc-radar/http%3A%2F%2Fevil.com%2FA%2520B");
    expect(canonicalIndicatorPath("[2001:DB8::1]:443")).toBe("/ioc-radar/%5B2001%3Adb8%3A%3A1%5D%3A443");
    expect(canonicalIndicatorPath("D41D8CD98F00B204E9800998ECF8427E")).toBe("/ioc-radar/d41d8cd98f00b204e9800998ecf8427e");
  });

  it("returns null for junk", () => {
    expect(canonicalIndicatorPath("")).toBeNull();
    expect(canonicalIndicatorPath("hello")).toBeNull();
    expect(canonicalIndicatorPath("../../etc/passwd")).toBeNull();
  });
});
