import type { Indicator } from "../ioc/types";

/**
 * One feed's statement about one indicator, as produced by the feed parsers.
 * The one declaration of a sighting: what the score, the STIX export and the
 * detail page need of one are `Pick`s of it (ScoreSighting,
 * StixSightingInput, IocSightingView), so a field means the same everywhere.
 */
export interface IocSighting {
  /** Feed id, e.g. "threatfox", "maltrail". */
  source: string;
  indicator: Indicator;
  /** The value exactly as the feed wrote it. */
  rawValue: string;
  /** ISO 8601 UTC ("2024-04-04T07:03:03.000Z"). */
  firstSeen: string | null;
  lastSeen: string | null;
  threatType: string | null;
  malwareFamily: string | null;
  tags: string[];
  /** 0-100 */
  confidence: number | null;
  reporter: string | null;
  reference: string | null;
  /** Port the feed gave with an IP or host; the indicator itself is then the bare IP or domain. */
  port?: number | null;
  /** CVE ids mentioned in tags or fields, upper-case. */
  cves?: string[];
  /** Other names the feed gives the malware family (maltrail's "# Aliases:"). */
  aliases?: string[];
}
