import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PageRoute } from "../../../shared/routes/types";
import { createSsrRenderer } from "../../../server/ssr/entry";
import { createTestApp, type TestApp } from "../../helpers/test-app";

/** No production route declares validate(); this table proves the mechanism. */
const testPages: PageRoute[] = [
  {
    id: "home",
    path: "/",
    module: "shared/pages/home/HomePage.tsx",
    load: () => import("../../../shared/pages/home/HomePage"),
  },
  {
    id: "cve-list",
    path: "/numbers/:n",
    validate: (params) => /^\d+$/.test(params.n ?? ""),
    module: "shared/pages/cve-list/CveListPage.tsx",
    load: () => import("../../../shared/pages/cve-list/CveListPage"),
  },
];

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ pages: testPages });
});
afterAll(() => t.close());

describe("route validate()", () => {
  it("renders the page when the check passes", async () => {
    await request(t.app).get("/numbers/42").expect(200);
  });

  it("raises a 404 when the check fails, before any data loads", async () => {
    const res = await request(t.app).get("/numbers/forty-two").expect(404);
    expect(res.text).toContain("Page not found: /numbers/forty-two");
  });
});

describe("route middleware names", () => {
  it("are checked when the renderer is created, i.e. at start-up", () => {
    const pages: PageRoute[] = [{ ...testPages[0]!, middleware: ["missing"] }];
    expect(() => createSsrRenderer({ loadPage: async () => null, pages })).toThrow('unknown middleware "missing"');
  });
});
