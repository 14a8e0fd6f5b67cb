import { hash } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { IocSighting } from "../../../server/feeds/ioc/sighting";
import { indicatorImporter, sightingVariant } from "../../../server/pipeline/importers/indicators-import";
import type { StagingOut } from "../../../server/pipeline/engine/staging";

function trail(value: string, overrides: Partial<IocSighting> = {}): IocSighting {
  return {
    source: "maltrail",
    indicator: { type: "domain", value },
    rawValue: value,
    firstSeen: null,
    lastSeen: null,
    threatType: "malware",
    malwareFamily: "emotet",
    tags: ["emotet"],
    confidence: null,
    reporter: null,
    reference: "https://example.org/emotet",
    ...overrides,
  };
}

/** The variant as the stored rows have it: 48 bits of the SHA-1 of the statement's key. */
function storedVariant(record: IocSighting): number {
  const key = JSON.stringify([record.port ?? null, record.reporter, record.malwareFamily, record.reference, [...record.tags].sort()]);
  return hash("sha1", key, "buffer").readUIntBE(0, 6);
}

describe("sightingVariant", () => {
  it("gives the stored variant whether the key was hashed before or not", () => {
    const record = trail("a.example", { tags: ["b", "a"], port: 8080 });
    expect(sightingVariant(record)).toBe(storedVariant(record));
    expect(sightingVariant(trail("b.example", { tags: ["a", "b"], port: 8080 }))).toBe(storedVariant(record));
  });

  it("tells statements apart by port, and still after many distinct keys have come and gone", () => {
    const first = trail("a.example", { port: 1 });
    const variant = sightingVariant(first);
    for (let port = 2; port < 25_000; port += 1) sightingVariant(trail("a.example", { port }));
    expect(sightingVariant(first)).toBe(variant);
    expect(sightingVariant(trail("a.example", { port: 2 }))).not.toBe(variant);
    expect(variant).toBe(storedVariant(first));
  });
});

describe("the indicator importer's staging of family aliases", () => {
  it("stages each alias of a family once, whether a feed hands the same list again or a new one", () => {
    const rows: Array<[string, readonly unknown[]]> = [];
    const out: StagingOut = { row: (table, values) => rows.push([table, values]) };
    const { stage } = indicatorImporter({ complete: true });
    const aliases = ["geodo", "heodo"];
    stage(trail("a.example", { aliases }), out, 0);
    stage(trail("b.example", { aliases }), out, 0);
    stage(trail("c.example", { aliases: ["heodo", "mealybug"] }), out, 0);
    // The same list object for another family: its aliases are that family's too.
    stage(trail("d.example", { malwareFamily: "Dridex", aliases }), out, 0);
    const staged = rows.filter(([table]) => table === "aliases").map(([, values]) => values);
    expect(staged).toEqual([
      ["emotet", "geodo"],
      ["emotet", "heodo"],
      ["emotet", "mealybug"],
      ["dridex", "geodo"],
      ["dridex", "heodo"],
    ]);
  });
});
