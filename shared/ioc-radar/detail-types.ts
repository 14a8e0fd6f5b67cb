import type { IndicatorType } from "../ioc/types";
import type { WarninglistType } from "../ioc/warninglist-match";
import type { IocScore } from "../scoring/ioc-score";

export interface IocSightingView {
  source: string;
  /** The port the feed gave with the value, or null. */
  port: number | null;
  rawValue: string;
  firstSeen: string | null;
  lastSeen: string | null;
  threatType: string | null;
  malwareFamily: string | null;
  tags: string[];
  confidence: number | null;
  reporter: string | null;
  reference: string | null;
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
  indicators: RelatedIndicator[];
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
  summary: {
    firstSeen: string | null;
    lastSeen: string | null;
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
