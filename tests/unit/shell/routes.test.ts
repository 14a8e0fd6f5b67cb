import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createRoutes } from "../../../shared/routes/create-routes";
import { documentMeta } from "../../../shared/routes/document-meta";
import { pageRoutes } from "../../../shared/routes/page-routes";
import { payloadUrl } from "../../../client/data/payload-loader";
import { describeError } from "../../../shared/error-catalogue";
import { parseCveId } from "../../../shared/cve/cve-id";
import { PROJECT_ROOT } from "../../helpers/paths";

const loadPage = async () => null;

describe("route table", () => {
  it("has the five pages of the spec under one layout, each loaded on demand", () => {
    const [root] = createRoutes({ pages: pageRoutes, loadPage });
    const children = root!.children ?? [];
    expect(children.map((route) => (route.index ? "/" : `/${route.path}`))).toEqual([
      "/",
      "/cve-radar",
      "/cve-radar/:cve",
      "/ioc-radar",
      "/ioc-radar/:ioc",
      "/*",
    ]);
    expect(children.slice(0, 5).every((route) => typeof route.lazy === "function")).toBe(true);
  });

  // `module` is how the server finds a page's chunk in the build manifest, to preload it.
  it("names as each page's module the file that its load() imports", async () => {
    for (const page of pageRoutes) {
      expect(await page.load(), page.id).toBe(await import(/* @vite-ignore */ join(PROJECT_ROOT, page.module)));
    }
  });

  it("refuses a route that names an unknown middleware when the table is built", () => {
    const pages = [{ ...pageRoutes[0], id: "x", path: "/x", middleware: ["no-such-middleware"] }];
    expect(() => createRoutes({ pages, loadPage })).toThrow('unknown middleware "no-such-middleware"');
  });
});

describe("payloadUrl", () => {
  it("puts the build id first and keeps the page query", () => {
    expect(payloadUrl(new URL("http://x/cve-radar?kev=1&page=2"), "b1")).toBe("/cve-radar/_payload.json?b1&kev=1&page=2");
    expect(payloadUrl(new URL("http://x/"), "b1")).toBe("/_payload.json?b1");
  });
});

describe("error catalogue", () => {
  it("has the spec's texts", () => {
    expect(describeError(404, "x@y.z").title).toBe("Page Not Found");
    expect(describeError(429, "x@y.z").title).toBe("Too many requests");
    const other = describeError(503, "help@example.org");
    expect(other.title).toBe("Something went wrong");
    expect(other.description).toContain("help@example.org");
  });

  it("titles error pages after the error", () => {
    const meta = documentMeta({ matches: [], loaderData: {}, errors: { root: { status: 404 } }, siteName: "TR", supportEmail: "a@b.c" });
    expect(meta.title).toBe("Page Not Found · TR");
  });
});

describe("parseCveId", () => {
  it.each([
    ["CVE-2024-3400", "CVE-2024-3400"],
    ["cve-2024-3400", "CVE-2024-3400"],
    ["CVE-2021-1234567", "CVE-2021-1234567"],
    ["CVE-24-3400", null],
    ["CVE-2024-340", null],
    ["CVE-2024-3400<script>", null],
  ])("%s → %s", (raw, expected) => {
    expect(parseCveId(raw)).toBe(expected);
  });
});
