import { describe, expect, it } from "vitest";
import { slashTwin } from "../../../shared/ioc/url";

describe("slashTwin: one resource written with and without its path's trailing slash", () => {
  it.each([
    ["http://evil.example/gate/", "http://evil.example/gate"],
    ["http://evil.example/gate", "http://evil.example/gate/"],
    ["https://evil.example:8443/a/b/", "https://evil.example:8443/a/b"],
  ])("%s ↔ %s", (url, twin) => {
    expect(slashTwin({ type: "url", value: url })).toEqual({ type: "url", value: twin });
    expect(slashTwin({ type: "url", value: twin })).toEqual({ type: "url", value: url });
  });

  it("has none for a bare host, a query, or what is not a URL", () => {
    expect(slashTwin({ type: "url", value: "http://evil.example/" })).toBeNull();
    expect(slashTwin({ type: "url", value: "http://evil.example/gate.php?id=1" })).toBeNull();
    expect(slashTwin({ type: "domain", value: "evil.example" })).toBeNull();
  });
});
