import { describe, expect, it } from "vitest";
import { escapeHtml, serializeForScript } from "../../../server/ssr/serialize";

describe("serializeForScript", () => {
  it("keeps values that would close the script tag from doing so", () => {
    const out = serializeForScript({ name: "</script><script>alert(1)</script>", c: "<!--", amp: "&", ls: "\u2028" });
    expect(out).not.toContain("</script");
    expect(out).not.toContain("<!--");
    expect(out).not.toContain("\u2028");
    expect(JSON.parse(out)).toEqual({ name: "</script><script>alert(1)</script>", c: "<!--", amp: "&", ls: "\u2028" });
  });
});

describe("escapeHtml", () => {
  it("escapes the five HTML-significant characters", () => {
    expect(escapeHtml(`<a href="x" title='y'>&</a>`)).toBe("&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;");
  });
});
