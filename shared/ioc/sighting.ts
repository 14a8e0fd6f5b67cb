/**
 * One feed's statement about one indicator: the fields every view of a
 * sighting shares. The parsers' record (server/feeds/ioc/sighting.ts) adds
 * the normalised indicator; what the score, the STIX export and the detail
 * page need of a sighting are `Pick`s of this, so a field is declared once
 * and means the same everywhere.
 */
export interface Sighting {
  /** Feed id, e.g. "threatfox", "maltrail". */
  source: string;
  /** The value exactly as the feed wrote it. */
  rawValue: string;
  /** The publisher's times, ISO 8601 UTC ("2024-04-04T07:03:03.000Z"); null when the feed dates nothing. */
  firstSeen: string | null;
  lastSeen: string | null;
  threatType: string | null;
  malwareFamily: string | null;
  tags: string[];
  /** 0–100 as the feed reported it, or null. */
  confidence: number | null;
  reporter: string | null;
  reference: string | null;
}
