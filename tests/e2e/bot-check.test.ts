import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Route } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { gotoHydrated, openSession, type E2eSession } from "./helpers/browser";
import { documentStatus, type Allowance } from "./helpers/console";
import { e2eSite } from "./helpers/site";

/**
 * The bot check working end to end, with nothing leaving the machine: the
 * browser's request for reCAPTCHA's api.js on www.recaptcha.net is answered
 * by the test with a tiny stand-in whose execute() returns a known token, and
 * the server verifies tokens against a loopback stand-in for siteverify
 * (RECAPTCHA_VERIFY_URL). The bulk lookup is the form that needs a token.
 */

const SITE_KEY = "6Lc_e2e_site_key_bot_check";
const SECRET = "e2e-bot-check-secret";
const TOKEN = "e2e-token-for-bulk-lookup";
const API_JS = "https://www.recaptcha.net/recaptcha/api.js";

/** reCAPTCHA v3's page API as the site uses it: ready(), execute(), and the badge it adds to the page. */
const FAKE_RECAPTCHA = `
(function () {
  var state = (window.__fakeRecaptcha = { src: document.currentScript && document.currentScript.src, calls: [] });
  var badge = document.createElement("div");
  badge.className = "grecaptcha-badge";
  badge.textContent = "protected by reCAPTCHA";
  document.body.appendChild(badge);
  window.grecaptcha = {
    ready: function (callback) { setTimeout(callback, 0); },
    execute: function (siteKey, options) {
      state.calls.push({ siteKey: siteKey, action: options.action });
      return Promise.resolve(${JSON.stringify(TOKEN)});
    },
  };
})();
`;

interface Verification {
  secret: string | null;
  response: string | null;
}

let verifications: Verification[] = [];
let siteverify: Server;
let verifyUrl: string;

beforeAll(async () => {
  siteverify = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => (body += chunk));
    req.on("end", () => {
      const form = new URLSearchParams(body);
      verifications.push({ secret: form.get("secret"), response: form.get("response") });
      const valid = form.get("secret") === SECRET && form.get("response") === TOKEN;
      res.writeHead(200, { "Content-Type": "application/json" });
      res.end(JSON.stringify(valid ? { success: true, score: 0.9, action: "bulk_lookup" } : { success: false, "error-codes": ["invalid-input-response"] }));
    });
  });
  await new Promise<void>((done) => siteverify.listen(0, "127.0.0.1", done));
  verifyUrl = `http://127.0.0.1:${(siteverify.address() as AddressInfo).port}/recaptcha/api/siteverify`;
});
// Registered after the stand-in's hooks: vitest closes the site first, the stand-in last.
afterAll(async () => {
  siteverify?.closeAllConnections();
  await new Promise((done) => (siteverify ? siteverify.close(done) : done(undefined)));
});
const site = e2eSite(() => ({ RECAPTCHA_SITE_KEY: SITE_KEY, RECAPTCHA_SECRET_KEY: SECRET, RECAPTCHA_VERIFY_URL: verifyUrl }));

/** A session whose request for reCAPTCHA's script gets the stand-in (page routes come before the context's block). */
async function withFakeRecaptcha(run: (s: E2eSession, scriptRequests: string[]) => Promise<void>, allow: Allowance[] = []) {
  const s = await openSession(site.browser);
  const scriptRequests: string[] = [];
  await s.page.route(
    (url) => url.href.startsWith(`${API_JS}?`),
    (route: Route) => {
      scriptRequests.push(route.request().url());
      return route.fulfill({ status: 200, contentType: "text/javascript", body: FAKE_RECAPTCHA });
    },
  );
  try {
    await run(s, scriptRequests);
    expect(s.console.problems(allow)).toEqual([]);
    expect(s.blocked).toEqual([]);
  } finally {
    await s.close();
  }
}

const LOOKUP_FORBIDDEN = (url: string) => documentStatus(`${url}/api/v1/iocs/lookup`, 403);

const fakeState = (s: E2eSession) =>
  s.page.evaluate(
    () => (window as unknown as { __fakeRecaptcha?: { src: string; calls: Array<{ siteKey: string; action: string }> } }).__fakeRecaptcha ?? null,
  );

describe("the bot check with a stand-in reCAPTCHA", () => {
  it("executeBotCheck('bulk_lookup') gives the provider's token, the lookup posts it, and the server verifies it", () =>
    withFakeRecaptcha(async (s, scriptRequests) => {
      const { page } = s;
      await gotoHydrated(page, `${site.server.url}/ioc-radar`);
      await expect.poll(() => fakeState(s)).not.toBeNull();
      expect(scriptRequests).toEqual([`${API_JS}?render=${SITE_KEY}`]);
      expect((await fakeState(s))!.calls).toEqual([]);

      verifications = [];
      await page.getByLabel(/Paste text with indicators/).fill("resolver 8[.]8[.]8[.]8");
      const [post] = await Promise.all([
        page.waitForRequest((request) => request.method() === "POST" && new URL(request.url()).pathname === "/api/v1/iocs/lookup"),
        page.getByRole("button", { name: "Look up" }).click(),
      ]);
      // executeBotCheck asked the provider once, with the configured site key and the form's action…
      expect((await fakeState(s))!.calls).toEqual([{ siteKey: SITE_KEY, action: "bulk_lookup" }]);
      // …and the form sent the token it returned.
      expect(post.postDataJSON()).toEqual({ text: "resolver 8[.]8[.]8[.]8", token: TOKEN });

      const result = page.getByTestId("lookup-result");
      await result.waitFor();
      expect(await result.textContent()).toContain("1 indicator found");
      expect(await page.locator('[data-testid="lookup-table"] [data-copy-value]').getAttribute("data-copy-value")).toBe("8.8.8.8");
      expect(verifications).toEqual([{ secret: SECRET, response: TOKEN }]);
    }));

  it("hides the badge reCAPTCHA adds and shows the required attribution instead", () =>
    withFakeRecaptcha(async (s) => {
      const { page } = s;
      await gotoHydrated(page, `${site.server.url}/`);
      await expect.poll(() => fakeState(s)).not.toBeNull();
      const badge = page.locator(".grecaptcha-badge");
      expect(await badge.count()).toBe(1);
      expect(await badge.evaluate((element) => getComputedStyle(element).visibility)).toBe("hidden");
      expect(await badge.isVisible()).toBe(false);

      const attribution = page.locator(".bot-check-attribution");
      expect(await attribution.isVisible()).toBe(true);
      expect((await attribution.textContent())?.replace(/\s+/g, " ").trim()).toBe(
        "This site is protected by reCAPTCHA and the Google Privacy Policy and Terms of Service apply.",
      );
    }));

  it("a token the provider rejects stops the lookup with the server's reason", () =>
    withFakeRecaptcha(
      async (s) => {
        const { page } = s;
        // The stand-in hands out another token this time.
        await page.route(
          (url) => url.href.startsWith(`${API_JS}?`),
          (route: Route) => route.fulfill({ status: 200, contentType: "text/javascript", body: FAKE_RECAPTCHA.replace(TOKEN, "forged-token") }),
        );
        await gotoHydrated(page, `${site.server.url}/ioc-radar`);
        await expect.poll(() => fakeState(s)).not.toBeNull();
        verifications = [];
        await page.getByLabel(/Paste text with indicators/).fill("8.8.8.8");
        const [response] = await Promise.all([
          page.waitForResponse((res) => new URL(res.url()).pathname === "/api/v1/iocs/lookup"),
          page.getByRole("button", { name: "Look up" }).click(),
        ]);
        expect(response.status()).toBe(403);
        expect(await page.getByRole("alert").textContent()).toMatch(/^Bot check failed: the token was rejected/);
        expect(await page.getByTestId("lookup-result").count()).toBe(0);
        expect(verifications).toEqual([{ secret: SECRET, response: "forged-token" }]);
        // The browser's own line for the 403 is the only console error (checked by withFakeRecaptcha).
        expect(s.console.errors.filter(LOOKUP_FORBIDDEN(site.server.url))).toHaveLength(1);
      },
      [LOOKUP_FORBIDDEN(site.server.url)],
    ));
});
