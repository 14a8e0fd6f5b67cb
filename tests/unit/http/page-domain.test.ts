import { describe, expect, it } from "vitest";
import { sourceDomain } from "../../../server/db/data-domains";
import { pageDomain } from "../../../server/http/page-domain";
import { SOURCE_NAMES } from "../../../server/pipeline/source-catalogue";

describe("the data domain of a page", () => {
  it("is the CVE radar's for its list and the list's payload", () => {
    expect(pageDomain("/cve-radar")).toBe("cve");
    expect(pageDomain("/cve-radar/_payload.json")).toBe("cve");
  });

  it("is the IOC radar's for its list, an indicator's page and their payloads", () => {
    expect(pageDomain("/ioc-radar")).toBe("ioc");
    expect(pageDomain("/ioc-radar/_payload.json")).toBe("ioc");
    expect(pageDomain("/ioc-radar/8.8.8.8")).toBe("ioc");
    expect(pageDomain("/ioc-radar/https%3A%2F%2Fexample.test%2Fa/_payload.json")).toBe("ioc");
  });

  it("is both for a CVE's page (it lists related indicators), the home page and anything else", () => {
    expect(pageDomain("/cve-radar/CVE-2024-3400")).toBeNull();
    expect(pageDomain("/cve-radar/CVE-2024-3400/_payload.json")).toBeNull();
    expect(pageDomain("/")).toBeNull();
    expect(pageDomain("/_payload.json")).toBeNull();
    expect(pageDomain("/cve-radarx")).toBeNull();
    expect(pageDomain("/ioc-radarx")).toBeNull();
  });
});

describe("the data domain of a feed", () => {
  it("is known for every feed the pipeline imports", () => {
    expect(SOURCE_NAMES.filter((name) => sourceDomain(name) === null)).toEqual([]);
  });

  it("is the CVE radar's for the CVE feeds and the IOC radar's for the indicator feeds", () => {
    expect(["cve-json5", "nvd", "cisa-kev", "epss", "trickest-poc", "mitre-cwe"].map(sourceDomain)).toEqual(Array(6).fill("cve"));
    expect(["tweetfeed", "maltrail", "misp-warninglists"].map(sourceDomain)).toEqual(["ioc", "ioc", "ioc"]);
    expect(sourceDomain("some-future-feed")).toBeNull();
  });
});
