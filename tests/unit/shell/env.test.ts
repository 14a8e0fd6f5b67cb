import { describe, expect, it } from "vitest";
import { ConfigError, loadEnv, toPublicConfig } from "../../../server/config/env";

describe("loadEnv", () => {
  it("gives every variable a working default", () => {
    const env = loadEnv({});
    expect(env.PORT).toBe(3000);
    expect(env.DATABASE_PATH).toBe("./data/threat-radar.sqlite");
  });

  it.each([
    ["PORT", "not-a-port"],
    ["PORT", "70000"],
    ["PUBLIC_SUPPORT_EMAIL", "nobody"],
    ["PUBLIC_OLD_BASE_URL", "not a url"],
    ["GTM_IDS", "UA-1234"],
    ["LOG_LEVEL", "loud"],
    ["RECAPTCHA_SITE_KEY", "<script>"],
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
    const config = toPublicConfig(
      loadEnv({ RECAPTCHA_SITE_KEY: "6Lc_public_site_key_01", RECAPTCHA_SECRET_KEY: secret, GTM_IDS: "GTM-ABC123, GTM-XYZ789" }),
    );
    expect(JSON.stringify(config)).not.toContain(secret);
    expect(config.botCheckSiteKey).toBe("6Lc_public_site_key_01");
    expect(config.tagManagerIds).toEqual(["GTM-ABC123", "GTM-XYZ789"]);
  });

  it("allows navigation to the old base URL's origin", () => {
    const config = toPublicConfig(loadEnv({ PUBLIC_OLD_BASE_URL: "https://old.example.org/start" }));
    expect(config.allowedExternalOrigins).toContain("https://old.example.org");
  });
});
