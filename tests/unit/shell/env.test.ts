import { describe, expect, it } from "vitest";
import { ConfigError, loadEnv, toPublicConfig, trustProxySetting } from "../../../server/config/env";

describe("loadEnv", () => {
  it("gives every variable a working default", () => {
    const env = loadEnv({});
    expect(env.PORT).toBe(3000);
    expect(env.DATABASE_PATH).toBe("./data/threat-radar.sqlite");
    expect(env.DATABASE_URL).toBeUndefined();
    expect(env.DATABASE_POOL_SIZE).toBe(10);
  });

  it("takes a PostgreSQL URL in either scheme", () => {
    for (const url of ["postgres://radar:secret@db.internal:5432/radar", "postgresql://localhost/radar"]) {
      expect(loadEnv({ DATABASE_URL: url }).DATABASE_URL).toBe(url);
    }
  });

  it.each([
    ["PORT", "not-a-port"],
    ["PORT", "70000"],
    ["PUBLIC_SUPPORT_EMAIL", "nobody"],
    ["PUBLIC_OLD_BASE_URL", "not a url"],
    ["GTM_IDS", "UA-1234"],
    ["LOG_LEVEL", "loud"],
    ["RECAPTCHA_SITE_KEY", "<script>"],
    ["DATABASE_URL", "mysql://db/threat"],
    ["DATABASE_URL", "postgres://[bad"],
    ["DATABASE_POOL_SIZE", "0"],
  ])("rejects %s=%s with a message naming the variable", (name, value) => {
    expect(() => loadEnv({ [name]: value })).toThrow(ConfigError);
    expect(() => loadEnv({ [name]: value })).toThrow(name);
  });

  it("refuses a bot-check site key without the secret that verifies its tokens", () => {
    expect(() => loadEnv({ RECAPTCHA_SITE_KEY: "6Lc_public_site_key_01" })).toThrow(/RECAPTCHA_SECRET_KEY: is required when RECAPTCHA_SITE_KEY is set/);
    expect(loadEnv({ RECAPTCHA_SITE_KEY: "6Lc_public_site_key_01", RECAPTCHA_SECRET_KEY: "s" }).RECAPTCHA_SECRET_KEY).toBe("s");
  });
});

describe("toPublicConfig", () => {
  it("exposes only public values, never a secret", () => {
    const secret = "6Lc-SECRET-never-in-the-page-0123456789";
    const config = toPublicConfig(loadEnv({ RECAPTCHA_SITE_KEY: "6Lc_public_site_key_01", RECAPTCHA_SECRET_KEY: secret, GTM_IDS: "GTM-ABC123, GTM-XYZ789" }));
    expect(JSON.stringify(config)).not.toContain(secret);
    expect(config.botCheckSiteKey).toBe("6Lc_public_site_key_01");
    expect(config.tagManagerIds).toEqual(["GTM-ABC123", "GTM-XYZ789"]);
  });

  it("allows navigation to the old base URL's origin", () => {
    const config = toPublicConfig(loadEnv({ PUBLIC_OLD_BASE_URL: "https://old.example.org/start" }));
    expect(config.allowedExternalOrigins).toContain("https://old.example.org");
  });
});

describe("loadEnv: numbers and lists an operator may mistype", () => {
  it.each([
    ["PORT", ""],
    ["PORT", "0"],
    ["PORT", " 8080"],
    ["PORT", "1e3"],
    ["SHUTDOWN_GRACE_MS", ""],
    ["DATABASE_READ_THREADS", "two"],
    ["RECAPTCHA_MIN_SCORE", ""],
    ["TRUST_PROXY", "yes"],
    ["TRUST_PROXY", ""],
    ["TRUST_PROXY", "10.0.0.0/33"],
    ["LOG_FORMAT", "colour"],
    ["METRICS_ALLOW", "everyone"],
    ["METRICS_TOKEN", "short"],
  ])("rejects %s=%j by name", (name, value) => {
    expect(() => loadEnv({ [name]: value })).toThrow(new RegExp(`^Invalid configuration:\\n  ${name}: `));
  });

  it.each([
    ["true", true],
    ["false", false],
    ["2", 2],
    ["loopback, 10.0.0.0/8, fd00::/8, 192.168.1.7", "loopback, 10.0.0.0/8, fd00::/8, 192.168.1.7"],
    ["10.0.0.0/255.0.0.0", "10.0.0.0/255.0.0.0"],
  ])("accepts TRUST_PROXY=%j as Express reads it", (value, setting) => {
    expect(trustProxySetting(loadEnv({ TRUST_PROXY: value }).TRUST_PROXY)).toEqual(setting);
  });

  it("reads numbers written in digits, and METRICS_ALLOW as a list", () => {
    const env = loadEnv({ PORT: "8080", RECAPTCHA_MIN_SCORE: "0.7", METRICS_ALLOW: "loopback, 203.0.113.0/24" });
    expect(env.PORT).toBe(8080);
    expect(env.RECAPTCHA_MIN_SCORE).toBe(0.7);
    expect(env.METRICS_ALLOW).toEqual(["loopback", "203.0.113.0/24"]);
    expect(loadEnv({ METRICS_ALLOW: "none" }).METRICS_ALLOW).toEqual([]);
  });
});
