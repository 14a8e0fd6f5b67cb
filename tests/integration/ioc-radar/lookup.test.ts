import { createServer, type Server } from "node:http";
import request from "supertest";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { SNAPSHOT_NOW } from "../setup/snapshot-database";
import { createTestApp, type TestApp } from "../../helpers/test-app";
import { feodoEntries } from "./source-counts";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ databasePath: inject("snapshotDatabase"), now: () => new Date(SNAPSHOT_NOW), env: { RATE_LIMIT_LOOKUP_MAX: "1000" } });
});
afterAll(() => t?.close());

type Result = { input: string; value: string; type: string; verdict: string; score: number | null; link: string; benignLists: string[] };

describe("bulk lookup", () => {
  it("extracts, normalises and classifies a mixed defanged paste", async () => {
    const ip = feodoEntries().find((entry) => entry.ip !== "192.9.135.73")!.ip;
    const text = [
      `C2 seen at ${ip.replaceAll(".", "[.]")} and 8[.]8[.]8[.]8 (resolver),`,
      "payload hxxps://never-seen-host-4711[.]com/x.bin",
      "hash d41d8cd98f00b204e9800998ecf8427e; mail evil[@]never-seen-host-4711(.)com",
      `again ${ip}`,
    ].join("\n");
    const { body } = await request(t.app).post("/api/v1/iocs/lookup").send({ text }).expect(200);
    const byValue = Object.fromEntries((body.results as Result[]).map((r) => [r.value, r]));
    expect(body.count).toBe(5);
    expect(byValue[ip]).toMatchObject({ type: "ipv4", verdict: "known", link: `/ioc-radar/${ip}` });
    expect(byValue[ip]!.score).toBeGreaterThan(0);
    expect(byValue["8.8.8.8"]).toMatchObject({ verdict: "benign-listed", score: null });
    expect(byValue["8.8.8.8"]!.benignLists).toContain("public-dns-v4");
    expect(byValue["https://never-seen-host-4711.com/x.bin"]).toMatchObject({ type: "url", verdict: "unknown" });
    expect(byValue["d41d8cd98f00b204e9800998ecf8427e"]).toMatchObject({ type: "md5", verdict: "benign-listed" });
    expect(byValue["evil@never-seen-host-4711.com"]).toMatchObject({ type: "email", verdict: "unknown" });
    expect(body.summary.byVerdict).toEqual({ known: 1, unknown: 2, "benign-listed": 2 });
    expect(body.summary.byType.ipv4).toEqual({ known: 1, unknown: 0, "benign-listed": 1 });
  });

  it("accepts text/plain", async () => {
    const { body } = await request(t.app).post("/api/v1/iocs/lookup").set("Content-Type", "text/plain").send("google[.]com\n1.2.3[.]4").expect(200);
    expect(body.results.map((r: Result) => r.value)).toEqual(["google.com", "1.2.3.4"]);
    expect(body.results[0].verdict).toBe("benign-listed");
  });

  it("answers 400 without text, 413 beyond 10,000 indicators or 1 MB", async () => {
    const missing = await request(t.app).post("/api/v1/iocs/lookup").send({ words: "x" }).expect(400);
    expect(missing.body.error.problems[0].param).toBe("text");
    const many = Array.from({ length: 10_001 }, (_, i) => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`).join(" ");
    await request(t.app).post("/api/v1/iocs/lookup").send({ text: many }).expect(413);
    const exactly = Array.from({ length: 10_000 }, (_, i) => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`).join(" ");
    const ok = await request(t.app).post("/api/v1/iocs/lookup").send({ text: exactly }).expect(200);
    expect(ok.body.count).toBe(10_000);
    await request(t.app).post("/api/v1/iocs/lookup").set("Content-Type", "text/plain").send("a".repeat(1_048_577)).expect(413);
    await request(t.app)
      .post("/api/v1/iocs/lookup")
      .send({ text: "a".repeat(1_048_577) })
      .expect(413);
  });

  it("has its own, stricter rate limit answering 429", async () => {
    const limited = await createTestApp({ databasePath: inject("snapshotDatabase"), env: { RATE_LIMIT_LOOKUP_MAX: "2" } });
    try {
      await request(limited.app).post("/api/v1/iocs/lookup").send({ text: "1.2.3.4" }).expect(200);
      await request(limited.app).post("/api/v1/iocs/lookup").send({ text: "1.2.3.4" }).expect(200);
      const res = await request(limited.app).post("/api/v1/iocs/lookup").send({ text: "1.2.3.4" }).expect(429);
      expect(res.body.error.statusCode).toBe(429);
      await request(limited.app).get("/api/v1/iocs?per_page=1").expect(200);
    } finally {
      await limited.close();
    }
  });
});

describe("bulk lookup behind the bot check", () => {
  let verifier: Server;
  let verifyUrl: string;
  const received: URLSearchParams[] = [];
  let bot: TestApp;

  beforeAll(async () => {
    verifier = createServer((req, res) => {
      let body = "";
      req.on("data", (chunk: Buffer) => (body += chunk.toString()));
      req.on("end", () => {
        const form = new URLSearchParams(body);
        received.push(form);
        const token = form.get("response");
        const answer =
          token === "human"
            ? { success: true, score: 0.9, action: "bulk_lookup" }
            : token === "robot"
              ? { success: true, score: 0.1, action: "bulk_lookup" }
              : token === "other-action"
                ? { success: true, score: 0.9, action: "login" }
                : { success: false, "error-codes": ["invalid-input-response"] };
        res.setHeader("Content-Type", "application/json");
        res.end(JSON.stringify(answer));
      });
    });
    await new Promise<void>((done) => verifier.listen(0, "127.0.0.1", done));
    verifyUrl = `http://127.0.0.1:${(verifier.address() as { port: number }).port}/recaptcha/api/siteverify`;
    bot = await createTestApp({
      databasePath: inject("snapshotDatabase"),
      env: { RECAPTCHA_SITE_KEY: "test-site-key-123", RECAPTCHA_SECRET_KEY: "test-secret", RECAPTCHA_VERIFY_URL: verifyUrl, RECAPTCHA_MIN_SCORE: "0.5" },
    });
  });
  afterAll(async () => {
    await bot?.close();
    await new Promise((done) => verifier?.close(done));
  });

  it("verifies the token server-side and answers only a human with enough score", async () => {
    await request(bot.app).post("/api/v1/iocs/lookup").send({ text: "1.2.3.4" }).expect(403);
    await request(bot.app).post("/api/v1/iocs/lookup").send({ text: "1.2.3.4", token: "forged" }).expect(403);
    await request(bot.app).post("/api/v1/iocs/lookup").send({ text: "1.2.3.4", token: "robot" }).expect(403);
    await request(bot.app).post("/api/v1/iocs/lookup").send({ text: "1.2.3.4", token: "other-action" }).expect(403);
    const { body } = await request(bot.app).post("/api/v1/iocs/lookup").send({ text: "1.2.3.4", token: "human" }).expect(200);
    expect(body.count).toBe(1);
    await request(bot.app).post("/api/v1/iocs/lookup").set("Content-Type", "text/plain").set("X-Bot-Check-Token", "human").send("1.2.3.4").expect(200);
    expect(received.at(-1)?.get("secret")).toBe("test-secret");
    expect(received.at(-1)?.get("response")).toBe("human");
  });

  it("fails closed when the verification service is unreachable", async () => {
    const down = await createTestApp({
      databasePath: inject("snapshotDatabase"),
      env: { RECAPTCHA_SITE_KEY: "test-site-key-123", RECAPTCHA_SECRET_KEY: "test-secret", RECAPTCHA_VERIFY_URL: "http://127.0.0.1:9/siteverify" },
    });
    try {
      const res = await request(down.app).post("/api/v1/iocs/lookup").send({ text: "1.2.3.4", token: "human" }).expect(403);
      expect(res.body.error.message).toContain("could not be reached");
    } finally {
      await down.close();
    }
  });
});
