import { createHash } from "node:crypto";
import { parseIpPort } from "../../shared/ioc/ip";
import type { Sighting } from "../../shared/ioc/sighting";

/**
 * STIX 2.1 objects for exported indicators: an indicator object with a STIX
 * pattern per value, an identity per feed, a sighting per feed statement, a
 * malware object per family and an "indicates" relationship to it. Ids are
 * UUIDv5 of the object's content, so the same data always exports the same ids.
 */

/** UUIDv5 namespace of Threat Radar's STIX ids. */
export const STIX_NAMESPACE = "6f0c3b5e-2d0a-5c1e-9a57-3b1e5c7d9a42";
const SPEC_VERSION = "2.1";

export function uuidv5(name: string, namespace = STIX_NAMESPACE): string {
  const hash = createHash("sha1")
    .update(Buffer.from(namespace.replace(/-/g, ""), "hex"))
    .update(name, "utf8")
    .digest();
  hash[6] = ((hash[6] ?? 0) & 0x0f) | 0x50;
  hash[8] = ((hash[8] ?? 0) & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export const stixId = (type: string, name: string) => `${type}--${uuidv5(`${type}|${name}`)}`;

export interface StixSightingInput extends Pick<Sighting, "source" | "firstSeen" | "lastSeen" | "reference"> {
  /** Tells a feed's statements about one value apart (one sighting object each). */
  variant: number;
}

export interface StixIndicatorInput {
  type: string;
  value: string;
  firstSeen: string | null;
  lastSeen: string | null;
  threatType: string | null;
  malwareFamily: string | null;
  tags: string[];
  confidence: number | null;
  sightings: StixSightingInput[];
}

export type StixObject = Record<string, unknown> & { type: string; id: string };

/** A STIX timestamp (RFC 3339, UTC, milliseconds) or null. */
export function stixTimestamp(value: string | null | undefined): string | null {
  if (!value) return null;
  const time = Date.parse(value);
  return Number.isNaN(time) ? null : new Date(time).toISOString();
}

function literal(value: string): string {
  return `'${value.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}'`;
}

const HASH_KEYS: Readonly<Record<string, string>> = { md5: "MD5", sha1: "'SHA-1'", sha256: "'SHA-256'", sha512: "'SHA-512'" };

/** The STIX pattern that matches an indicator value, or null for a type STIX cannot express. */
export function stixPattern(type: string, value: string): string | null {
  switch (type) {
    case "ipv4":
      return `[ipv4-addr:value = ${literal(value)}]`;
    case "ipv6":
      return `[ipv6-addr:value = ${literal(value)}]`;
    case "cidr":
      return `[${value.includes(":") ? "ipv6-addr" : "ipv4-addr"}:value = ${literal(value)}]`;
    case "domain":
      return `[domain-name:value = ${literal(value)}]`;
    case "url":
      return `[url:value = ${literal(value)}]`;
    case "email":
      return `[email-addr:value = ${literal(value)}]`;
    case "ip:port": {
      const parsed = parseIpPort(value);
      if (!parsed) return null;
      const addressType = parsed.version === 4 ? "ipv4-addr" : "ipv6-addr";
      return `[network-traffic:dst_ref.type = '${addressType}' AND network-traffic:dst_ref.value = ${literal(parsed.ip)} AND network-traffic:dst_port = ${parsed.port}]`;
    }
    default: {
      const key = HASH_KEYS[type];
      return key ? `[file:hashes.${key} = ${literal(value)}]` : null;
    }
  }
}

function isWebUrl(value: string | null): value is string {
  return value !== null && /^https?:\/\//i.test(value) && URL.canParse(value);
}

/**
 * Builds the STIX objects of one indicator. Identities and malware objects
 * shared between indicators are emitted once per bundle: `emitted` holds the
 * ids already written.
 */
export function stixObjectsFor(input: StixIndicatorInput, fallbackTime: string, emitted: Set<string>): StixObject[] {
  const pattern = stixPattern(input.type, input.value);
  if (!pattern) return [];
  const objects: StixObject[] = [];
  const firstSeen = stixTimestamp(input.firstSeen);
  const lastSeen = stixTimestamp(input.lastSeen);
  const validFrom = firstSeen ?? lastSeen ?? fallbackTime;
  const modified =
    [validFrom, lastSeen]
      .filter((t): t is string => t !== null)
      .sort()
      .at(-1) ?? validFrom;
  const indicatorId = stixId("indicator", `${input.type}|${input.value}`);
  const labels = [...new Set([input.threatType, ...input.tags].filter((label): label is string => Boolean(label)))];
  const references = input.sightings.filter((s) => isWebUrl(s.reference)).map((s) => ({ source_name: s.source, url: s.reference as string }));
  objects.push({
    type: "indicator",
    spec_version: SPEC_VERSION,
    id: indicatorId,
    created: validFrom,
    modified,
    name: input.value,
    pattern,
    pattern_type: "stix",
    valid_from: validFrom,
    indicator_types: ["malicious-activity"],
    ...(labels.length > 0 ? { labels } : {}),
    ...(input.confidence !== null ? { confidence: Math.max(0, Math.min(100, Math.round(input.confidence))) } : {}),
    ...(references.length > 0 ? { external_references: references } : {}),
  });

  for (const sighting of input.sightings) {
    const identityId = stixId("identity", sighting.source);
    if (!emitted.has(identityId)) {
      emitted.add(identityId);
      objects.push({
        type: "identity",
        spec_version: SPEC_VERSION,
        id: identityId,
        created: "2024-01-01T00:00:00.000Z",
        modified: "2024-01-01T00:00:00.000Z",
        name: sighting.source,
        identity_class: "organization",
      });
    }
    const first = stixTimestamp(sighting.firstSeen);
    const last = stixTimestamp(sighting.lastSeen);
    const stamp =
      [first, last]
        .filter((t): t is string => t !== null)
        .sort()
        .at(-1) ?? validFrom;
    objects.push({
      type: "sighting",
      spec_version: SPEC_VERSION,
      id: stixId("sighting", `${input.type}|${input.value}|${sighting.source}|${sighting.variant}`),
      created: stamp,
      modified: stamp,
      sighting_of_ref: indicatorId,
      where_sighted_refs: [identityId],
      ...(first ? { first_seen: first } : {}),
      ...(last && (!first || last >= first) ? { last_seen: last } : {}),
    });
  }

  if (input.malwareFamily) {
    const family = input.malwareFamily.trim();
    const malwareId = stixId("malware", family.toLowerCase());
    if (!emitted.has(malwareId)) {
      emitted.add(malwareId);
      objects.push({
        type: "malware",
        spec_version: SPEC_VERSION,
        id: malwareId,
        created: "2024-01-01T00:00:00.000Z",
        modified: "2024-01-01T00:00:00.000Z",
        name: family,
        is_family: true,
      });
    }
    objects.push({
      type: "relationship",
      spec_version: SPEC_VERSION,
      id: stixId("relationship", `${indicatorId}|indicates|${malwareId}`),
      created: modified,
      modified,
      relationship_type: "indicates",
      source_ref: indicatorId,
      target_ref: malwareId,
    });
  }
  return objects;
}
