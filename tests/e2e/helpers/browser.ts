import { readFileSync } from "node:fs";
import { join } from "node:path";
import { chromium, type Browser, type BrowserContext, type Page, type Request } from "playwright-core";
import { CHROMIUM_FLAGS, CHROMIUM_PATH } from "../../../scripts/chromium";
import { collectConsole, type ConsoleCollector } from "./console";
import { PROJECT_ROOT } from "./server";

/** Starts the system Chromium with the flags this machine needs (docs/stack notes). */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_FLAGS });
}

const LOOPBACK_HOSTS = new Set(["127.0.0.1", "[::1]"]);

/** Whether a URL is one the suite may contact: http(s) on 127.0.0.1 or ::1. */
export function isLoopback(url: string): boolean {
  try {
    const parsed = new URL(url);
    return (parsed.protocol === "http:" || parsed.protocol === "https:") && LOOPBACK_HOSTS.has(parsed.hostname);
  } catch {
    return false;
  }
}

export interface E2eSession {
  context: BrowserContext;
  page: Page;
  console: ConsoleCollector;
  /** Every request the page made, in order, including the ones aborted by the block. */
  requests: Request[];
  /** URLs of requests aborted because they would have left the loopback interface. */
  blocked: string[];
  /** URLs of the main frame's document loads (first load, reloads, full navigations). */
  documentLoads(): string[];
  /** URLs of `_payload.json` requests, in order. */
  payloadRequests(): string[];
  close(): Promise<void>;
}

/**
 * A fresh context and page (own storage, own routes) on a shared browser. Any
 * request to a host other than 127.0.0.1 / ::1 is aborted before it leaves the
 * browser and recorded in `blocked`.
 */
export async function openSession(browser: Browser, options: { viewport?: { width: number; height: number } } = {}): Promise<E2eSession> {
  const context = await browser.newContext({
    viewport: options.viewport ?? { width: 1280, height: 720 },
    serviceWorkers: "block",
  });
  const blocked: string[] = [];
  await context.route(
    (url) => !isLoopback(url.href),
    async (route) => {
      blocked.push(route.request().url());
      await route.abort("failed");
    },
  );
  const page = await context.newPage();
  const requests: Request[] = [];
  page.on("request", (request) => requests.push(request));
  const console = collectConsole(page);
  return {
    context,
    page,
    console,
    requests,
    blocked,
    documentLoads: () => requests.filter((request) => request.isNavigationRequest() && request.frame() === page.mainFrame()).map((r) => r.url()),
    payloadRequests: () => requests.map((request) => request.url()).filter((url) => new URL(url).pathname.endsWith("/_payload.json")),
    close: () => context.close(),
  };
}

export const HYDRATED = '#root[data-hydration="hydrated"]';

/** Loads `url` as a document and waits until React has hydrated it. */
export async function gotoHydrated(page: Page, url: string): Promise<void> {
  await page.goto(url, { waitUntil: "domcontentloaded" });
  await waitForHydration(page);
}

export async function waitForHydration(page: Page): Promise<void> {
  try {
    await page.locator(HYDRATED).waitFor({ state: "attached" });
  } catch (error) {
    throw new Error(`The page never hydrated.${await rebuiltDistHint(page)}`, { cause: error });
  }
}

/**
 * The server keeps the asset names it read from dist/ at start-up; a `npm run
 * build` elsewhere meanwhile deletes those files and no page can hydrate.
 */
async function rebuiltDistHint(page: Page): Promise<string> {
  try {
    const onDisk = (JSON.parse(readFileSync(join(PROJECT_ROOT, "dist/client/.vite/build.json"), "utf8")) as { id: string }).id;
    const inPage = await page.evaluate(() => window.__THREAT_RADAR__?.build.id ?? null);
    return inPage && inPage !== onDisk
      ? ` dist/ was rebuilt while the e2e server ran (page build ${inPage}, dist/ build ${onDisk}): its assets are gone; rerun.`
      : "";
  } catch {
    return "";
  }
}

/** A value on `window` that only survives as long as the document does. */
export async function setDocumentMarker(page: Page): Promise<void> {
  await page.evaluate(() => {
    (window as unknown as { __e2eMarker?: number }).__e2eMarker = 1;
  });
}

export async function documentMarker(page: Page): Promise<number | undefined> {
  return page.evaluate(() => (window as unknown as { __e2eMarker?: number }).__e2eMarker);
}

/** The payload URL the client is expected to fetch for a page path (client/data/payload-loader.ts). */
export function expectedPayloadPath(pagePath: string, buildId: string): string {
  return `${pagePath.replace(/\/$/, "")}/_payload.json?${encodeURIComponent(buildId)}`;
}

/** A link of the header's main navigation (Layout): "Home", "CVE radar" or "IOC radar". */
export function mainNavLink(page: Page, name: "Home" | "CVE radar" | "IOC radar") {
  return page.getByRole("navigation", { name: "Main" }).getByRole("link", { name, exact: true });
}

export async function waitForTitle(page: Page, title: string): Promise<void> {
  await page.waitForFunction((expected) => document.title === expected, title);
}

/** Appends markup to <body>, outside the React root, so React never sees or touches it. */
export async function appendToBody(page: Page, html: string): Promise<void> {
  await page.evaluate((markup) => document.body.insertAdjacentHTML("beforeend", markup), html);
}

/**
 * Installs Playwright's fake clock and freezes it at `at`: from then on timers
 * fire only when the test moves time (runFor, fastForward). The installed
 * clock runs until it is paused, so it starts a minute earlier; pausing at a
 * moment that a slow machine has already passed would fail.
 */
export async function freezeClock(page: Page, at: number): Promise<void> {
  await page.clock.install({ time: at - 60_000 });
  await page.clock.pauseAt(at);
}
