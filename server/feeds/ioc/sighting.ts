import type { Sighting } from "../../../shared/ioc/sighting";
import type { Indicator } from "../../../shared/ioc/types";

/** A sighting as the feed parsers produce it: the feed's statement (shared/ioc/sighting.ts) and the normalised indicator. */
export interface IocSighting extends Sighting {
  indicator: Indicator;
  /** Port the feed gave with an IP or host; the indicator itself is then the bare IP or domain. */
  port?: number | null;
  /** CVE ids mentioned in tags or fields, upper-case. */
  cves?: string[];
  /** Other names the feed gives the malware family (maltrail's "# Aliases:"). */
  aliases?: string[];
}
