import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SERVER_NODE_FLAGS } from "../../../server/runtime/server-heap";
import { PROJECT_ROOT } from "../../helpers/paths";

const read = (file: string) => readFileSync(join(PROJECT_ROOT, file), "utf8");
const serverCommand = ["node", ...SERVER_NODE_FLAGS, "dist/server/index.js"].join(" ");

/** Every file that starts the production server starts it with the same Node flags. */
describe("the production server's command", () => {
  it("is the same in the npm scripts start and serve", () => {
    const { scripts } = JSON.parse(read("package.json")) as { scripts: Record<string, string> };
    expect(scripts.serve).toBe(`NODE_ENV=production exec ${serverCommand}`);
    expect(scripts.start).toBe(`npm run build && NODE_ENV=production exec ${serverCommand}`);
  });

  it("is the same in the Dockerfile's CMD", () => {
    const cmd = /^CMD (\[.*\])$/m.exec(read("Dockerfile"))?.[1];
    expect(JSON.parse(cmd ?? "null")).toEqual(["node", ...SERVER_NODE_FLAGS, "dist/server/index.js"]);
  });

  it("is the same in the systemd unit", () => {
    expect(read("deploy/threat-radar.service")).toMatch(new RegExp(`^ExecStart=/usr/bin/${serverCommand.replaceAll(".", "\\.")}$`, "m"));
  });
});
