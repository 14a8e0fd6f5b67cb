/**
 * Which part of the site each feed's data is shown in. An import writes only
 * its own domain's tables (the CVE importers never touch an indicator, the
 * IOC importers never touch a CVE), so a page that shows one domain alone
 * need not be rendered again when the other domain's feed publishes.
 */
export type DataDomain = "cve" | "ioc";

export const DATA_DOMAINS: readonly DataDomain[] = ["cve", "ioc"];

/** Feeds of the CVE radar. */
const CVE_SOURCES: readonly string[] = ["cve-json5", "nvd", "cisa-kev", "epss", "trickest-poc", "mitre-cwe"];

/** Feeds of the IOC radar, in the order the page lists their freshness. */
export const IOC_SOURCES: readonly string[] = [
  "feodotracker",
  "malwarebazaar",
  "urlhaus",
  "threatfox",
  "tweetfeed",
  "maltrail",
  "signature-base",
  "misp-warninglists",
];

/** The domain a feed's data belongs to; null for a name this build does not know (then it counts for every domain). */
export function sourceDomain(name: string): DataDomain | null {
  if (CVE_SOURCES.includes(name)) return "cve";
  if (IOC_SOURCES.includes(name)) return "ioc";
  return null;
}
