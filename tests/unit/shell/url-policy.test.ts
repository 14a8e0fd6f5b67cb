import { describe, expect, it } from "vitest";
import { classifyHref, mayNavigate } from "../../../shared/navigation/url-policy";

const ORIGIN = "https://radar.example.org";

describe("classifyHref", () => {
  it.each([
    ["/cve-radar", "internal"],
    ["#section", "internal"],
    ["https://radar.example.org/ioc-radar", "internal"],
    ["https://nvd.nist.gov/vuln/detail/CVE-2024-3400", "external"],
    ["//evil.example/", "external"],
    ["javascript:alert(1)", "forbidden"],
    ["JaVaScRiPt:alert(1)", "forbidden"],
    ["java\tscript:alert(1)", "forbidden"],
    [" javascript:alert(1)", "forbidden"],
    ["data:text/html,<script>alert(1)</script>", "forbidden"],
    ["vbscript:msgbox(1)", "forbidden"],
  ] as const)("%s is %s", (href, kind) => {
    expect(classifyHref(href, ORIGIN)).toBe(kind);
  });
});

describe("mayNavigate", () => {
  it("blocks external targets unless allowed explicitly or by origin", () => {
    expect(mayNavigate("https://evil.example/", ORIGIN)).toBe(false);
    expect(mayNavigate("https://evil.example/", ORIGIN, { allowExternal: true })).toBe(true);
    expect(mayNavigate("https://old.example.org/home", ORIGIN, { allowedOrigins: ["https://old.example.org"] })).toBe(true);
  });

  it("never allows script-bearing protocols, even when external navigation is allowed", () => {
    expect(mayNavigate("javascript:alert(1)", ORIGIN, { allowExternal: true })).toBe(false);
    expect(mayNavigate("data:text/html,x", ORIGIN, { allowExternal: true })).toBe(false);
  });
});
