import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { parseMispManifest } from "../../../server/feeds/ioc/misp";
import { snapshot } from "./paths";

describe("MISP feed manifest", () => {
  it("lists the events oldest change first and rejects keys that are not UUIDs or lack a timestamp", () => {
    const manifest = parseMispManifest(
      JSON.stringify({
        "b40b4702-2dfc-577d-b0e7-aa15a4ba99f5": { info: "second", date: "2025-08-24", timestamp: "1756076613" },
        "2E035642-C558-5019-89F2-BC7BDF8B34CE": { info: "first", date: "2025-08-23", timestamp: "1755989538" },
        "../../etc/passwd": { timestamp: "1" },
        "0f3a1c2e-5b6d-4e7f-8a9b-0c1d2e3f4a5b": { info: "no timestamp" },
      }),
      "feed/manifest.json",
    );
    expect(manifest.events).toEqual([
      { uuid: "2e035642-c558-5019-89f2-bc7bdf8b34ce", timestamp: 1_755_989_538, date: "2025-08-23", info: "first" },
      { uuid: "b40b4702-2dfc-577d-b0e7-aa15a4ba99f5", timestamp: 1_756_076_613, date: "2025-08-24", info: "second" },
    ]);
    expect(manifest.rejected).toEqual([
      { location: 'feed/manifest.json "../../etc/passwd"', reason: "event key is not a UUID" },
      { location: 'feed/manifest.json "0f3a1c2e-5b6d-4e7f-8a9b-0c1d2e3f4a5b"', reason: "event without a numeric timestamp" },
    ]);
  });

  it("throws on a document that is not a manifest, which fails the import", () => {
    expect(() => parseMispManifest('{"a": ', "m.json")).toThrow(/m\.json: not a MISP feed manifest \(invalid JSON/);
    expect(() => parseMispManifest("[]", "m.json")).toThrow(/expected an object of events/);
  });

  it("reads TweetFeed's real manifest: 365 daily events", () => {
    const text = execFileSync("tar", ["-xzOf", snapshot("tweetfeed", "tweetfeed_misp_feed.tar.gz"), "misp/manifest.json"], { encoding: "utf8" });
    const manifest = parseMispManifest(text);
    expect(manifest.rejected).toEqual([]);
    expect(manifest.events).toHaveLength(365);
    // PROVENANCE.md: events from 2025-08-23 to 2026-08-22, one a day.
    expect(manifest.events[0]).toMatchObject({ uuid: "2e035642-c558-5019-89f2-bc7bdf8b34ce", date: "2025-08-23", info: "TweetFeed IOCs 2025-08-23" });
    const dates = manifest.events.map((e) => e.date ?? "").sort();
    expect([dates[0], dates.at(-1), new Set(dates).size]).toEqual(["2025-08-23", "2026-08-22", 365]);
    // Ordered by timestamp, which is when an event last changed, not its date:
    // 87 events were republished at one same second.
    const timestamps = manifest.events.map((e) => e.timestamp);
    expect(timestamps).toEqual([...timestamps].sort((a, b) => a - b));
    const sameSecond = new Map<number, number>();
    for (const t of timestamps) sameSecond.set(t, (sameSecond.get(t) ?? 0) + 1);
    expect(Math.max(...sameSecond.values())).toBe(87);
  });
});
