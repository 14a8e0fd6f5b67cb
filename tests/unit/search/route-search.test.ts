import { describe, expect, it } from "vitest";
import { searchDestination } from "../../../shared/search/route-search";

describe("header search routing", () => {
  it.each([
    ["cve-2024-3400", "/cve-radar/CVE-2024-3400"],
    ["  CVE-2021-44228 ", "/cve-radar/CVE-2021-44228"],
    ["hxxps://evil[.]example[.]com/login.php", "/ioc-radar/https%3A%2F%2Fevil.example.com%2Flogin.php"],
    ["8[.]8[.]8[.]8", "/ioc-radar/8.8.8.8"],
    ["44D88612FEA8A8F36DE82E1278ABB02F", "/ioc-radar/44d88612fea8a8f36de82e1278abb02f"],
  ])("%s goes to %s", (input, destination) => {
    expect(searchDestination(input)).toBe(destination);
  });

  it("sends several indicators to the bulk lookup", () => {
    const text = "44d88612fea8a8f36de82e1278abb02f\n3395856ce81f2b7382dee72602f798b642f14140";
    expect(searchDestination(text)).toBe(`/ioc-radar?lookup=${encodeURIComponent(text)}#bulk-lookup`);
  });

  it("runs anything else as a CVE full-text search", () => {
    expect(searchDestination("remote code execution")).toBe("/cve-radar?q=remote%20code%20execution");
    expect(searchDestination("<script>")).toBe("/cve-radar?q=%3Cscript%3E");
    expect(searchDestination("   ")).toBeNull();
  });
});
