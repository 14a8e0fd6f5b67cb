import { describe, expect, it } from "vitest";
import { stixId, stixObjectsFor, stixPattern, uuidv5, type StixIndicatorInput } from "../../../server/ioc/stix-export";
import { stixBundleValidator } from "../../helpers/stix-schemas";

const GENERATED = "2025-01-24T00:00:00.000Z";

const base: StixIndicatorInput = {
  type: "ipv4",
  value: "192.9.135.73",
  firstSeen: "2023-05-23T17:51:44.000Z",
  lastSeen: "2024-04-01T00:00:00.000Z",
  threatType: "botnet_cc",
  malwareFamily: "Pikabot",
  tags: ["pikabot"],
  confidence: 90,
  sightings: [
    { source: "feodotracker", variant: 1, firstSeen: "2023-05-23T17:51:44.000Z", lastSeen: "2024-04-01T00:00:00.000Z", reference: null },
    { source: "tweetfeed", variant: 1, firstSeen: "2024-03-01T10:00:00Z", lastSeen: null, reference: "https://twitter.com/x/status/1" },
  ],
};

describe("STIX 2.1 builder", () => {
  it("uuidv5 matches the RFC 4122 test vector", () => {
    expect(uuidv5("www.example.com", "6ba7b810-9dad-11d1-80b4-00c04fd430c8")).toBe("2ed6657d-e927-568b-95e1-2665a8aea6a2");
  });

  it.each([
    ["ipv4", "1.2.3.4", "[ipv4-addr:value = '1.2.3.4']"],
    ["ipv6", "2001:db8::1", "[ipv6-addr:value = '2001:db8::1']"],
    ["cidr", "10.0.0.0/8", "[ipv4-addr:value = '10.0.0.0/8']"],
    ["domain", "evil.example", "[domain-name:value = 'evil.example']"],
    ["url", "http://evil.example/a'b\\c", "[url:value = 'http://evil.example/a\\'b\\\\c']"],
    ["email", "a@evil.example", "[email-addr:value = 'a@evil.example']"],
    ["md5", "d41d8cd98f00b204e9800998ecf8427e", "[file:hashes.MD5 = 'd41d8cd98f00b204e9800998ecf8427e']"],
    ["sha256", "a".repeat(64), `[file:hashes.'SHA-256' = '${"a".repeat(64)}']`],
    [
      "ip:port",
      "1.2.3.4:8080",
      "[network-traffic:dst_ref.type = 'ipv4-addr' AND network-traffic:dst_ref.value = '1.2.3.4' AND network-traffic:dst_port = 8080]",
    ],
  ])("patterns a %s", (type, value, pattern) => {
    expect(stixPattern(type, value)).toBe(pattern);
  });

  it("builds an indicator, one identity and sighting per feed, the malware and an indicates relationship", () => {
    const objects = stixObjectsFor(base, GENERATED, new Set());
    expect(objects.map((o) => o.type)).toEqual(["indicator", "identity", "sighting", "identity", "sighting", "malware", "relationship"]);
    const indicator = objects[0]!;
    expect(indicator).toMatchObject({
      pattern: "[ipv4-addr:value = '192.9.135.73']",
      pattern_type: "stix",
      valid_from: "2023-05-23T17:51:44.000Z",
      indicator_types: ["malicious-activity"],
      labels: ["botnet_cc", "pikabot"],
      confidence: 90,
      external_references: [{ source_name: "tweetfeed", url: "https://twitter.com/x/status/1" }],
    });
    expect(indicator.id).toBe(stixId("indicator", "ipv4|192.9.135.73"));
    const relationship = objects.at(-1)!;
    expect(relationship).toMatchObject({ relationship_type: "indicates", source_ref: indicator.id, target_ref: objects[5]!.id });
  });

  it("is deterministic and emits shared identities and malware once", () => {
    const emitted = new Set<string>();
    const first = stixObjectsFor(base, GENERATED, emitted);
    const second = stixObjectsFor({ ...base, value: "192.9.135.74", sightings: base.sightings.slice(0, 1) }, GENERATED, emitted);
    expect(second.map((o) => o.type)).toEqual(["indicator", "sighting", "relationship"]);
    expect(stixObjectsFor(base, GENERATED, new Set())).toEqual(first);
  });

  it("validates against the official STIX 2.1 schemas", () => {
    const validate = stixBundleValidator();
    const emitted = new Set<string>();
    const inputs: StixIndicatorInput[] = [
      base,
      { ...base, type: "url", value: "http://evil.example/x?a='1'", malwareFamily: null, tags: [], threatType: null, confidence: null, sightings: [] },
      { ...base, type: "sha256", value: "b".repeat(64), firstSeen: null, lastSeen: null },
      { ...base, type: "ip:port", value: "1.2.3.4:443" },
    ];
    const bundle = { type: "bundle", id: stixId("bundle", "unit"), objects: inputs.flatMap((input) => stixObjectsFor(input, GENERATED, emitted)) };
    expect(validate(bundle), JSON.stringify(validate.errors?.slice(0, 3))).toBe(true);
  });
});
