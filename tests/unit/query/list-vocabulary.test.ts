import { describe, expect, it } from "vitest";
import { cveListParamsSchema } from "../../../shared/cve/list-params";
import { CVE_LIST_KEYS, cveListSearch } from "../../../shared/cve/list-vocabulary";
import { iocListParamsSchema } from "../../../shared/ioc-radar/list-params";
import { IOC_LIST_KEYS, iocListSearch } from "../../../shared/ioc-radar/list-vocabulary";

/** The browser builds links from the key lists; the server parses with the schemas. They must name the same keys. */
describe("list vocabularies", () => {
  it("the CVE key list is the schema's keys in the schema's order", () => {
    expect([...CVE_LIST_KEYS]).toEqual(Object.keys(cveListParamsSchema.shape));
  });

  it("the IOC key list is the schema's keys in the schema's order", () => {
    expect([...IOC_LIST_KEYS]).toEqual(Object.keys(iocListParamsSchema.shape));
  });

  it("a link round-trips through the server's parser", () => {
    const search = cveListSearch({ severity: ["critical", "high"], kev: true, sort: "cvss", dir: "asc", page: 3 });
    expect(search).toBe("?severity=critical%2Chigh&kev=1&sort=cvss&dir=asc&page=3");
    const parsed = cveListParamsSchema.parse(Object.fromEntries(new URLSearchParams(search)));
    expect(parsed).toEqual({ severity: ["critical", "high"], kev: true, sort: "cvss", dir: "asc", page: 3 });
  });

  it("omits absent, empty and false values", () => {
    expect(iocListSearch({ q: "", type: [], malware: "emotet", page: undefined })).toBe("?malware=emotet");
  });
});
