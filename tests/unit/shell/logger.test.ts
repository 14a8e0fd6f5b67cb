import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { createLogger, type LogFormat } from "../../../server/logger";

/** Logs one line through a logger writing to a fake terminal (or not) and returns what was written. */
function logLine(format: LogFormat, isTTY: boolean): string {
  const out = Object.assign(new PassThrough(), { isTTY });
  let written = "";
  out.on("data", (chunk: Buffer) => (written += chunk.toString()));
  createLogger("info", format, out).info({ source: "cisa-kev" }, "import finished");
  return written;
}

describe("createLogger", () => {
  it("writes JSON lines when the output is not a terminal", () => {
    const line = JSON.parse(logLine("auto", false)) as Record<string, unknown>;
    expect(line).toMatchObject({ level: 30, service: "threat-radar", source: "cisa-kev", msg: "import finished" });
  });

  it("writes readable lines on a terminal", () => {
    const text = logLine("auto", true);
    expect(text).toContain("import finished");
    expect(text).toContain("cisa-kev");
    expect(() => JSON.parse(text)).toThrow();
  });

  it("follows LOG_FORMAT over the terminal check, both ways", () => {
    expect(() => JSON.parse(logLine("json", true))).not.toThrow();
    const pretty = logLine("pretty", false);
    expect(pretty).toMatch(/INFO.*import finished/);
    expect(pretty).not.toContain("\u001b["); // no colours into a file
  });
});
