import type { Browser } from "playwright-core";
import { afterAll, beforeAll } from "vitest";
import { launchBrowser, openSession, type E2eSession } from "./browser";
import { startE2eServer, type E2eServer } from "./server";

export interface E2eSite {
  /** The production server this file talks to (set once the file's `beforeAll` ran). */
  readonly server: E2eServer;
  readonly browser: Browser;
  /** Runs `run` in a fresh browser context on this site's browser, and closes it afterwards. */
  withSession(run: (s: E2eSession) => Promise<void>, options?: Parameters<typeof openSession>[1]): Promise<void>;
}

/**
 * The set-up every e2e file shares: one production server (own port, own
 * temporary database unless `env` points elsewhere) and one browser for the
 * file, started in parallel before its tests and closed after them. Files own
 * nothing else in common, so they can run in parallel.
 *
 * `env` may be a function, read when the server starts: a file that first
 * starts a loopback stand-in (a beforeAll registered earlier) can hand over
 * its address. `prepare` runs once both are up (seeding the database, say).
 */
export function e2eSite(env: Record<string, string> | (() => Record<string, string>) = {}, prepare?: (site: E2eSite) => void | Promise<void>): E2eSite {
  let server: E2eServer | undefined;
  let browser: Browser | undefined;
  const site: E2eSite = {
    get server() {
      if (!server) throw new Error("the e2e server is not up: use it inside a test or hook");
      return server;
    },
    get browser() {
      if (!browser) throw new Error("the e2e browser is not up: use it inside a test or hook");
      return browser;
    },
    async withSession(run, options) {
      const s = await openSession(site.browser, options);
      try {
        await run(s);
      } finally {
        await s.close();
      }
    },
  };
  beforeAll(async () => {
    [server, browser] = await Promise.all([startE2eServer(typeof env === "function" ? env() : env), launchBrowser()]);
    await prepare?.(site);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });
  return site;
}
