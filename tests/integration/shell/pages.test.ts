import { readFileSync } from "node:fs";
import { join } from "node:path";
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pageRoutes } from "../../../shared/routes/page-routes";
import { createTestApp, type TestApp } from "../../helpers/test-app";
import { cspNonce, readBootState } from "../../helpers/html";
import { DIST_DIR } from "../../helpers/paths";

const SECRET = "sk_live_THIS-MUST-NEVER-REACH-A-BROWSER-42";
let t: TestApp;

beforeAll(async () => {
  t = await createTestApp({
    env: {
      RECAPTCHA_SECRET_KEY: SECRET,
      PUBLIC_OLD_BASE_URL: "https://old.example.org/",
      PUBLIC_SUPPORT_EMAIL: "soc@example.org",
      PUBLIC_SITE_NAME: "Radar </script><script>alert('x')</script>",
    },
  });
});
afterAll(() => t.close());

describe("server-rendered pages", () => {
  it.each([
    ["/", "Home"],
    ["/cve-radar", "CVE radar"],
    ["/ioc-radar", "IOC radar"],
  ])("%s renders with lang, title, description and the hydration marker", async (path, title) => {
    const res = await request(t.app).get(path).expect(200);
    expect(res.headers["content-type"]).toMatch(/text\/html/);
    expect(res.text).toMatch(/^<!DOCTYPE html><html lang="en-US">/);
    expect(res.text).toContain(`<title>${title} · Radar &lt;/script&gt;`);
    expect(res.text).toMatch(/<meta name="description" content="[^"]{20,}">/);
    expect(res.text).toContain('<div id="root" data-hydration="hydrating">');
    expect(res.text).toMatch(/<script type="module" [^>]*src="\/assets\/[^"]+\.js"/);
    expect(res.text.endsWith("</div></body></html>")).toBe(true);
  });

  it.each(["/", "/cve-radar", "/ioc-radar"])("%s preloads its own page chunk, found in the manifest by the page's module", async (path) => {
    const manifest = JSON.parse(readFileSync(join(DIST_DIR, "client/.vite/manifest.json"), "utf8")) as Record<string, { file: string }>;
    const page = pageRoutes.find((route) => route.path === path)!;
    const others = pageRoutes.filter((route) => route !== page).map((route) => manifest[route.module]!.file);
    const res = await request(t.app).get(path).expect(200);
    expect(res.text).toContain(`<link rel="modulepreload" href="/${manifest[page.module]!.file}">`);
    for (const file of others) expect(res.text).not.toContain(`href="/${file}"`);
  });

  it("never lets shared caches keep HTML", async () => {
    const res = await request(t.app).get("/").expect(200);
    expect(res.headers["cache-control"]).toBe("private, no-cache");
  });

  it("injects the public config in a nonce'd script, escaped, without secrets", async () => {
    const res = await request(t.app).get("/").expect(200);
    const nonce = cspNonce(res.headers["content-security-policy"]);
    expect(res.text).toContain(`<script nonce="${nonce}">window.__THREAT_RADAR__=`);
    expect(res.text).not.toContain(SECRET);
    expect(res.text).not.toContain("<script>alert('x')</script>");
    const boot = readBootState(res.text);
    expect(boot.config.siteName).toBe("Radar </script><script>alert('x')</script>");
    expect(boot.config.oldBaseUrl).toBe("https://old.example.org/");
    expect(boot.build.id).toBe(t.buildId);
  });

  it("gives every inline script the request's nonce", async () => {
    const res = await request(t.app).get("/").expect(200);
    const nonce = cspNonce(res.headers["content-security-policy"]);
    const scripts = [...res.text.matchAll(/<script\b[^>]*>/g)].map((m) => m[0]);
    expect(scripts.length).toBeGreaterThanOrEqual(2);
    for (const script of scripts) expect(script).toContain(`nonce="${nonce}"`);
  });

  it("answers an unmatched path with the 404 error screen", async () => {
    const res = await request(t.app).get("/no/such/page").expect(404);
    expect(res.text).toContain("Page Not Found");
    expect(res.text).toContain("Page not found: /no/such/page");
    expect(res.text).toContain('href="https://old.example.org/"');
    expect(res.text).toContain("Back to Home");
  });

  it("escapes the path it reflects on the 404 page", async () => {
    const res = await request(t.app).get("/%3Cscript%3Ealert(1)%3C/script%3E").expect(404);
    expect(res.text).not.toContain("<script>alert(1)</script>");
  });

  it("redirects a lower-case CVE id to its canonical URL and 404s a malformed one", async () => {
    await request(t.app).get("/cve-radar/cve-2024-3400").expect(301).expect("Location", "/cve-radar/CVE-2024-3400");
    const res = await request(t.app).get("/cve-radar/not-a-cve").expect(404);
    expect(res.text).toContain("Page Not Found");
  });
});

describe("security headers", () => {
  it("sets a nonce CSP with no unsafe-inline for scripts and hides X-Powered-By", async () => {
    const res = await request(t.app).get("/").expect(200);
    const csp = res.headers["content-security-policy"] as string;
    const scriptSrc = csp.split(";").find((d) => d.trim().startsWith("script-src "))!;
    expect(scriptSrc).toMatch(/'nonce-[A-Za-z0-9+/=]{16,}'/);
    expect(scriptSrc).not.toContain("unsafe-inline");
    expect(scriptSrc).not.toContain("recaptcha");
    expect(res.headers["x-powered-by"]).toBeUndefined();
    expect(res.headers["x-content-type-options"]).toBe("nosniff");
    expect(res.headers["referrer-policy"]).toBeDefined();
  });

  it("uses a new nonce for every request", async () => {
    const a = cspNonce((await request(t.app).get("/")).headers["content-security-policy"]);
    const b = cspNonce((await request(t.app).get("/")).headers["content-security-policy"]);
    expect(a).not.toBe(b);
  });

  it("caches hashed assets forever", async () => {
    const html = (await request(t.app).get("/")).text;
    const asset = /src="(\/assets\/[^"]+\.js)"/.exec(html)![1]!;
    const res = await request(t.app).get(asset).expect(200);
    expect(res.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
  });
});

/** The policy as directive name -> sources, in order. */
function cspDirectives(header: string | undefined): Record<string, string[]> {
  const directives: Record<string, string[]> = {};
  for (const part of (header ?? "").split(";")) {
    const [name, ...sources] = part.trim().split(/\s+/);
    if (name) directives[name] = sources;
  }
  return directives;
}

/** helmet's headers besides the CSP, with the values the site sends. */
const HELMET_HEADERS = {
  "cross-origin-opener-policy": "same-origin",
  "cross-origin-resource-policy": "same-origin",
  "origin-agent-cluster": "?1",
  "referrer-policy": "no-referrer",
  "strict-transport-security": "max-age=31536000; includeSubDomains",
  "x-content-type-options": "nosniff",
  "x-dns-prefetch-control": "off",
  "x-download-options": "noopen",
  "x-frame-options": "DENY",
  "x-permitted-cross-domain-policies": "none",
  "x-xss-protection": "0",
};

describe("helmet on every response, not only pages", () => {
  it.each([
    ["a page", () => "/", 200, /text\/html/],
    ["an API JSON response", () => "/api/v1/cves", 200, /application\/json/],
    ["a page payload", () => `/cve-radar/_payload.json?${t.buildId}`, 200, /application\/json/],
    ["an unknown API path's 404 JSON", () => "/api/v1/nothing", 404, /application\/json/],
    ["an unknown build's 404 JSON", () => "/_app/builds/meta/nope.json", 404, /application\/json/],
    ["a static file", () => "/favicon.svg", 200, /image\/svg\+xml/],
    ["a health check", () => "/healthz", 200, /application\/json/],
  ])("%s", async (_what, path, status, type) => {
    const res = await request(t.app).get(path()).expect(status);
    expect(res.headers["content-type"]).toMatch(type);
    for (const [name, value] of Object.entries(HELMET_HEADERS)) expect(res.headers[name], name).toBe(value);
    expect(res.headers["x-powered-by"]).toBeUndefined();
    const csp = cspDirectives(res.headers["content-security-policy"]);
    expect(csp["default-src"]).toEqual(["'self'"]);
    expect(csp["script-src"]).toEqual(["'self'", `'nonce-${cspNonce(res.headers["content-security-policy"])}'`]);
    expect(csp["frame-ancestors"]).toEqual(["'none'"]);
  });

  it("a hashed asset, cached forever", async () => {
    const html = (await request(t.app).get("/")).text;
    const asset = /src="(\/assets\/[^"]+\.js)"/.exec(html)![1]!;
    const res = await request(t.app).get(asset).expect(200);
    expect(res.headers["content-type"]).toMatch(/javascript/);
    for (const [name, value] of Object.entries(HELMET_HEADERS)) expect(res.headers[name], name).toBe(value);
    expect(cspDirectives(res.headers["content-security-policy"])["default-src"]).toEqual(["'self'"]);
  });
});

describe("third-party scripts", () => {
  const NONCE = /^'nonce-[A-Za-z0-9+/=]{16,}'$/;
  const ANALYTICS = ["https://*.google-analytics.com", "https://*.analytics.google.com", "https://*.googletagmanager.com"];

  async function policyWith(env: Record<string, string>) {
    const configured = await createTestApp({ env });
    try {
      const res = await request(configured.app).get("/").expect(200);
      return { csp: cspDirectives(res.headers["content-security-policy"]), html: res.text };
    } finally {
      await configured.close();
    }
  }

  function expectScriptSrc(sources: string[] | undefined, thirdParty: string[]) {
    expect(sources?.[0]).toBe("'self'");
    expect(sources?.[1]).toMatch(NONCE);
    expect(sources?.slice(2)).toEqual(thirdParty);
  }

  it("none configured: scripts only from the site or with the nonce, no frames, no third-party hosts", async () => {
    const { csp } = await policyWith({});
    expectScriptSrc(csp["script-src"], []);
    expect(csp["frame-src"]).toEqual(["'none'"]);
    expect(csp["connect-src"]).toEqual(["'self'"]);
    expect(csp["img-src"]).toEqual(["'self'", "data:", "blob:"]);
    expect(csp["script-src-attr"]).toEqual(["'none'"]);
    expect(csp["object-src"]).toEqual(["'none'"]);
    expect(csp["base-uri"]).toEqual(["'self'"]);
    expect(csp["form-action"]).toEqual(["'self'"]);
  });

  it("the bot check adds exactly reCAPTCHA's script, frame and connect sources on its alternate domain", async () => {
    const { csp, html } = await policyWith({ RECAPTCHA_SITE_KEY: "6Lc_public_site_key_01", RECAPTCHA_SECRET_KEY: SECRET });
    expectScriptSrc(csp["script-src"], ["https://www.recaptcha.net/recaptcha/", "https://www.gstatic.com/recaptcha/"]);
    expect(csp["frame-src"]).toEqual(["https://www.recaptcha.net/recaptcha/"]);
    expect(csp["connect-src"]).toEqual(["'self'", "https://www.recaptcha.net/recaptcha/"]);
    expect(csp["img-src"]).toEqual(["'self'", "data:", "blob:"]);
    expect(readBootState(html).config.botCheckSiteKey).toBe("6Lc_public_site_key_01");
    expect(html).toContain("protected by reCAPTCHA");
  });

  it("the tag manager adds exactly its script source and the analytics hosts for images and beacons", async () => {
    const { csp, html } = await policyWith({ GTM_IDS: "GTM-ABC123" });
    expectScriptSrc(csp["script-src"], ["https://www.googletagmanager.com"]);
    expect(csp["frame-src"]).toEqual(["'none'"]);
    expect(csp["connect-src"]).toEqual(["'self'", ...ANALYTICS]);
    expect(csp["img-src"]).toEqual(["'self'", "data:", "blob:", ...ANALYTICS]);
    expect(readBootState(html).config.tagManagerIds).toEqual(["GTM-ABC123"]);
  });

  it("both configured: the union, bot check first", async () => {
    const { csp } = await policyWith({ RECAPTCHA_SITE_KEY: "6Lc_public_site_key_01", RECAPTCHA_SECRET_KEY: SECRET, GTM_IDS: "GTM-ABC123" });
    expectScriptSrc(csp["script-src"], ["https://www.recaptcha.net/recaptcha/", "https://www.gstatic.com/recaptcha/", "https://www.googletagmanager.com"]);
    expect(csp["frame-src"]).toEqual(["https://www.recaptcha.net/recaptcha/"]);
    expect(csp["connect-src"]).toEqual(["'self'", "https://www.recaptcha.net/recaptcha/", ...ANALYTICS]);
  });
});
