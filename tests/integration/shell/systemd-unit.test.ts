import { execFile } from "node:child_process";
import { resolve } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { PROJECT_ROOT } from "../../helpers/paths";

/**
 * systemd reads deploy/threat-radar.service leniently: a key in the wrong
 * section is ignored with a line in the journal nobody reads. The start
 * limit sat in [Service] once, so a configuration error restarted the server
 * every 5 s forever. systemd's own checker (Debian's systemd package, on
 * every machine here) must find nothing to say.
 */
describe("deploy/threat-radar.service", () => {
  it("passes systemd-analyze verify without a warning", async () => {
    const { stdout, stderr } = await promisify(execFile)("systemd-analyze", ["verify", "--man=no", resolve(PROJECT_ROOT, "deploy/threat-radar.service")]);
    expect(stdout + stderr).toBe("");
  });
});
