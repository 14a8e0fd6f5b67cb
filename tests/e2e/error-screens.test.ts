import { sql } from "kysely";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pageRoutes } from "../../shared/routes/page-routes";
import type { PageRoute } from "../../shared/routes/types";
import { launchBrowser, openSession, waitForHydration, type E2eSession } from "./helpers/browser";
import { documentStatus } from "./helpers/console";
import { startInProcessServer, type InProcessServer } from "./helpers/in-process-server";
import { startE2eServer, type E2eServer } from "./helpers/server";

/**
 * Browser twins of the error-screen tests in tests/integration/shell: each
 * error page hydrates in Chromium, shows the catalogue's texts and one 'Back
 * to Home', and logs no console error but the browser's own line for the
 * document's status.
 *
 * The 429 and the malformed CVE id come from the production server process.
 * A route's validate() and a loader that throws need what only a test can
 * set up (a route table of its own, a database taken away), so those two
 * pages are served by the same application built in this process.
 */

const SUPPORT = "soc@example.org";
const OLD_SITE = "https://old.example.org/";
const env = { PUBLIC_SUPPORT_EMAIL: SUPPORT, PUBLIC_OLD_BASE_URL: OLD_SITE };

/** The product's table with the CVE page checked by validate() instead of its middleware. */
const validatedPages: PageRoute[] = pageRoutes.map((page) =>
  page.id === "cve-detail" ? { ...page, middleware: undefined, validate: (params) => /^CVE-\d{4}-\d{4,}$/.test(params.cve ?? "") } : page,
);

let production: E2eServer;
let limited: E2eServer;
let validated: InProcessServer;
let failing: InProcessServer;
let browser: Browser;

beforeAll(async () => {
  [production, limited, validated, failing, browser] = await Promise.all([
    startE2eServer(env),
    startE2eServer({ ...env, RATE_LIMIT_PAGES_MAX: "1", RATE_LIMIT_WINDOW_MS: "600000" }),
    startInProcessServer({ env, pages: validatedPages }),
    startInProcessServer({ env }),
    launchBrowser(),
  ]);
  await sql`insert into cves (id, state, record_source, title) values ('CVE-2024-3400', 'PUBLISHED', 'e2e-seed', 'seeded')`.execute(
    validated.testApp.database.db,
  );
  // The CVE list's loader reads the database: with its read pool closed, the loader throws.
  await failing.testApp.reads.close();
});
afterAll(async () => {
  await browser?.close();
  await Promise.all([production?.close(), limited?.close(), validated?.close(), failing?.close()]);
});

interface Expected {
  status: number;
  title: string;
  description: string;
  detail: string | null;
}

async function expectErrorScreen(url: string, expected: Expected): Promise<E2eSession> {
  const s = await openSession(browser);
  try {
    const response = await s.page.goto(url);
    expect(response?.status()).toBe(expected.status);
    await waitForHydration(s.page);

    expect(await s.page.locator("html").getAttribute("lang")).toBe("en-US");
    expect(await s.page.title()).toBe(`${expected.title} · Threat Radar`);
    const screen = s.page.locator("main.error-screen");
    expect(await screen.getAttribute("data-status")).toBe(String(expected.status));
    expect(await screen.locator(".error-screen__code").textContent()).toBe(String(expected.status));
    expect(await screen.locator("h1").textContent()).toBe(expected.title);
    expect(await screen.locator(".error-screen__description").textContent()).toBe(expected.description);
    const detail = screen.locator(".error-screen__detail");
    if (expected.detail === null) expect(await detail.count()).toBe(0);
    else expect(await detail.textContent()).toBe(expected.detail);
    // One action only, to the old site; the layout is replaced.
    expect(await screen.getByRole("link").count()).toBe(1);
    expect(await screen.getByRole("link", { name: "Back to Home" }).getAttribute("href")).toBe(OLD_SITE);
    expect(await screen.getByRole("button").count()).toBe(0);
    expect(await s.page.getByRole("navigation", { name: "Main" }).count()).toBe(0);

    expect(s.console.problems([documentStatus(url, expected.status)])).toEqual([]);
    expect(s.console.errors.filter(documentStatus(url, expected.status))).toHaveLength(1);
    expect(s.blocked).toEqual([]);
    return s;
  } catch (error) {
    await s.close();
    throw error;
  }
}

const NOT_FOUND = "The page might have been removed, renamed or temporarily unavailable.";

describe("error screens hydrate in the browser", () => {
  it("429: the page rate limit answers with 'Too many requests'", async () => {
    // The one page this client may load in the window.
    expect((await fetch(`${limited.url}/`)).status).toBe(200);
    const s = await expectErrorScreen(`${limited.url}/cve-radar`, {
      status: 429,
      title: "Too many requests",
      description: "The rate limit for this endpoint was exceeded; try again later.",
      detail: null,
    });
    await s.close();
  });

  it("404 from a malformed CVE id (/cve-radar/not-a-cve)", async () => {
    const s = await expectErrorScreen(`${production.url}/cve-radar/not-a-cve`, {
      status: 404,
      title: "Page Not Found",
      description: NOT_FOUND,
      detail: "Page not found: /cve-radar/not-a-cve",
    });
    await s.close();
  });

  it("404 raised by a route's validate() (test route table, in-process server)", async () => {
    // The check passes: the page itself.
    const ok = await openSession(browser);
    try {
      const response = await ok.page.goto(`${validated.url}/cve-radar/CVE-2024-3400`);
      expect(response?.status()).toBe(200);
      await waitForHydration(ok.page);
      expect(await ok.page.locator("main h1").first().textContent()).toContain("CVE-2024-3400");
    } finally {
      await ok.close();
    }
    // It fails: the lower-case id is not redirected (no middleware in this table) but refused.
    const s = await expectErrorScreen(`${validated.url}/cve-radar/cve-2024-3400`, {
      status: 404,
      title: "Page Not Found",
      description: NOT_FOUND,
      detail: "Page not found: /cve-radar/cve-2024-3400",
    });
    await s.close();
  });

  it("500 from a loader that throws on the server (database gone, in-process server): the support e-mail, no internal detail", async () => {
    const s = await expectErrorScreen(`${failing.url}/cve-radar`, {
      status: 500,
      title: "Something went wrong",
      description: `We are sorry, an error occurred while processing your request. Please try again later, or contact ${SUPPORT} support if it persists.`,
      detail: null,
    });
    try {
      const text = (await s.page.locator("body").textContent()) ?? "";
      expect(text).not.toMatch(/destroyed|Error:|at \S+ \(/);
    } finally {
      await s.close();
    }
  });
});
