import type { IndicatorType, WarninglistType } from "../ioc/types";
import type { Sighting } from "../ioc/sighting";
import type { IocScore } from "../scoring/ioc-score";

/** A sighting as the detail page shows it: the feed's statement and this instance's listing times. */
export interface IocSightingView extends Pick<
  Sighting,
  "source" | "rawValue" | "firstSeen" | "lastSeen" | "threatType" | "malwareFamily" | "tags" | "confidence" | "reporter" | "reference"
> {
  /** The port the feed gave with the value, or null. */
  port: number | null;
  /** This instance's: first imported; still listed by a complete list at its last import; or no longer listed since. */
  listedSince: string;
  stillListedAt: string | null;
  delistedAt: string | null;
}

export interface RelatedIndicator {
  type: string;
  value: string;
  display: string;
  lastSeen: string | null;
  malwareFamily: string | null;
}

export interface RelatedGroup {
  relation: "malware" | "host" | "domain" | "slash24";
  /** What they share: the family, the host, the registered domain or the /24. */
  key: string;
  /** The newest few; `total` says how many there are, and `listSearch` opens them all on the IOC radar. */
  indicators: RelatedIndicator[];
  total: number;
  listSearch: string;
}

export interface WarninglistHit {
  list: string;
  type: WarninglistType;
  entry: string;
  description: string | null;
}

export interface IocActivityWindow {
  days: number;
  /** Feeds whose newest sighting falls inside the window. */
  sources: string[];
}

export interface IocDetailData {
  type: IndicatorType;
  value: string;
  /** The value defanged for display. */
  display: string;
  /** False: valid indicator that no tracked feed has reported. */
  known: boolean;
  /**
   * What was asked for, when the page shows something else: an ip:port the
   * feeds file under its address, or a port named beside a host; null when
   * the page shows exactly what was asked.
   */
  requested: { value: string; port: number | null } | null;
  summary: {
    firstSeen: string | null;
    lastSeen: string | null;
    listedSince: string;
    stillListedAt: string | null;
    threatType: string | null;
    malwareFamily: string | null;
    tags: string[];
    sources: string[];
    confidence: number | null;
  } | null;
  score: IocScore;
  sightings: IocSightingView[];
  activity: IocActivityWindow[];
  related: RelatedGroup[];
  cves: string[];
  warninglists: WarninglistHit[];
  generatedAt: string;
}
