import type { Importer } from "./engine/importer";
import { cveRecordImporter } from "./importers/cve-records-import";
import { cweImporter } from "./importers/cwe-import";
import { epssImporter } from "./importers/epss-import";
import { kevImporter } from "./importers/kev-import";
import { trickestImporter } from "./importers/trickest-import";
import { indicatorImporter } from "./importers/indicators-import";
import { warninglistImporter } from "./importers/warninglists-import";
import { readCveJson5, readCwe, readEpss, readKev, readNvd, readTrickest } from "./readers";
import { readFeodo, readMalwareBazaar, readMaltrail, readSignatureBase, readThreatFox, readTweetFeed, readUrlhaus, readWarninglists } from "./ioc-readers";
import type { SourceReader } from "./run";
import { isDeltaFileName } from "../feeds/cve/cvelist";
import { isMispFeedLocation } from "./ioc-readers";
import type { IocSighting } from "../feeds/ioc/sighting";

export const SOURCE_NAMES = [
  "cve-json5",
  "nvd",
  "cisa-kev",
  "epss",
  "trickest-poc",
  "mitre-cwe",
  "threatfox",
  "urlhaus",
  "feodotracker",
  "malwarebazaar",
  "tweetfeed",
  "signature-base",
  "maltrail",
  "misp-warninglists",
] as const;

export type SourceName = (typeof SOURCE_NAMES)[number];

// `any`, not `unknown`: a list of definitions with different record types must
// accept each one's read/import pair, which `unknown` rejects (parameters are contravariant).
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export interface SourceDefinition<R = any> {
  name: SourceName;
  title: string;
  /** The publisher's live location(s); SOURCE_<NAME>_URL replaces them. */
  defaultLocations: readonly string[];
  /** Where the source sits inside a mirror directory laid out like ../shared/data. */
  mirrorPaths: readonly string[];
  /** The publisher's own file names, accepted in a mirror too (docs/sync.md). */
  publisherNames?: readonly string[];
  intervalMinutes: number;
  enabledByDefault: boolean;
  /** Data older than this (by its newest record, else the publisher's date of its files, else its last success) is flagged stale. */
  staleAfterHours: number;
  read: SourceReader<R>;
  createImporter: () => Importer<R>;
  /** Whether a location is read whole on every run, so an unchanged one means nothing to import (default: all are). */
  readWhole?: (location: string) => boolean;
  /** A record's own date, for the source's freshness. */
  recordDate?: (record: R) => string | null;
}

const sightingDate = (record: IocSighting) => record.lastSeen ?? record.firstSeen;
/** A feed that lists everything it knows each time: what it stops listing is marked delisted. */
const completeList = () => indicatorImporter({ complete: true });
/** A feed of recent additions: absence says nothing. */
const additions = () => indicatorImporter({ complete: false });

const HOUR = 60;
const DAY = 24 * HOUR;

/**
 * Every feed the pipeline knows, in the order a full sync runs them: CVE
 * records first, then the evidence that ranks them, then the IOC feeds.
 * Intervals follow how often each publisher updates.
 */
export const SOURCES: readonly SourceDefinition[] = [
  {
    name: "cve-json5",
    title: "CVE List (CVE JSON 5.x, cvelistV5)",
    defaultLocations: [
      "https://raw.githubusercontent.com/CVEProject/cvelistV5/main/cves/deltaLog.json",
      "https://github.com/CVEProject/cvelistV5/archive/refs/heads/main.tar.gz",
    ],
    mirrorPaths: ["cve-json5-vulnrichment"],
    publisherNames: ["cvelistV5-main.tar.gz"],
    intervalMinutes: HOUR,
    enabledByDefault: true,
    staleAfterHours: 48,
    read: readCveJson5,
    createImporter: () => cveRecordImporter("cve-json5"),
    readWhole: (location) => !isDeltaFileName(location),
    recordDate: (record) => record.dateUpdated ?? record.datePublished,
  },
  {
    name: "nvd",
    title: "NVD CVE API 2.0",
    defaultLocations: ["https://services.nvd.nist.gov/rest/json/cves/2.0"],
    mirrorPaths: ["nvd"],
    intervalMinutes: 2 * HOUR,
    // Optional second opinion: without an API key a full load takes hours.
    enabledByDefault: false,
    staleAfterHours: 48,
    read: readNvd,
    createImporter: () => cveRecordImporter("nvd"),
    readWhole: () => false,
    recordDate: (record) => record.dateUpdated ?? record.datePublished,
  },
  {
    name: "cisa-kev",
    title: "CISA Known Exploited Vulnerabilities",
    defaultLocations: ["https://www.cisa.gov/sites/default/files/feeds/known_exploited_vulnerabilities.json"],
    mirrorPaths: ["cisa-kev/known_exploited_vulnerabilities.json"],
    publisherNames: ["known_exploited_vulnerabilities.json"],
    intervalMinutes: 2 * HOUR,
    enabledByDefault: true,
    // CISA adds entries a few times a week, not daily.
    staleAfterHours: 14 * 24,
    read: readKev,
    createImporter: kevImporter,
    recordDate: (entry) => entry.dateAdded,
  },
  {
    name: "epss",
    title: "FIRST EPSS",
    defaultLocations: ["https://epss.empiricalsecurity.com/epss_scores-current.csv.gz"],
    mirrorPaths: ["epss"],
    publisherNames: ["epss_scores-current.csv.gz"],
    intervalMinutes: 6 * HOUR,
    enabledByDefault: true,
    staleAfterHours: 72,
    read: readEpss,
    createImporter: epssImporter,
    recordDate: (score) => score.scoreDate,
  },
  {
    name: "trickest-poc",
    title: "Trickest CVE PoC references",
    defaultLocations: ["https://github.com/trickest/cve/archive/refs/heads/main.tar.gz"],
    mirrorPaths: ["trickest-cve-poc"],
    publisherNames: ["cve-main.tar.gz"],
    intervalMinutes: DAY,
    enabledByDefault: true,
    staleAfterHours: 7 * 24,
    read: readTrickest,
    createImporter: trickestImporter,
  },
  {
    name: "mitre-cwe",
    title: "MITRE CWE catalogue",
    defaultLocations: ["https://cwe.mitre.org/data/xml/cwec_latest.xml.zip"],
    mirrorPaths: ["mitre-cwe"],
    publisherNames: ["cwec_latest.xml.zip"],
    intervalMinutes: 7 * DAY,
    enabledByDefault: true,
    // CWE releases come a few times a year.
    staleAfterHours: 400 * 24,
    read: readCwe,
    createImporter: cweImporter,
  },
  {
    name: "threatfox",
    title: "abuse.ch ThreatFox",
    defaultLocations: ["https://threatfox.abuse.ch/export/csv/recent/"],
    mirrorPaths: ["abusech/threatfox"],
    intervalMinutes: HOUR,
    enabledByDefault: true,
    staleAfterHours: 48,
    read: readThreatFox,
    createImporter: additions,
    recordDate: sightingDate,
  },
  {
    name: "urlhaus",
    title: "abuse.ch URLhaus",
    defaultLocations: ["https://urlhaus.abuse.ch/downloads/csv_recent/"],
    mirrorPaths: ["abusech/urlhaus"],
    intervalMinutes: HOUR,
    enabledByDefault: true,
    staleAfterHours: 48,
    read: readUrlhaus,
    createImporter: additions,
    recordDate: sightingDate,
  },
  {
    name: "feodotracker",
    title: "abuse.ch Feodo Tracker",
    defaultLocations: ["https://feodotracker.abuse.ch/downloads/ipblocklist.csv"],
    mirrorPaths: ["abusech/feodotracker_ipblocklist_2024-04-04.csv"],
    publisherNames: ["ipblocklist.csv"],
    intervalMinutes: HOUR,
    enabledByDefault: true,
    staleAfterHours: 48,
    read: readFeodo,
    createImporter: completeList,
    recordDate: sightingDate,
  },
  {
    name: "malwarebazaar",
    title: "abuse.ch MalwareBazaar",
    defaultLocations: ["https://bazaar.abuse.ch/export/csv/recent/"],
    mirrorPaths: ["abusech/malwarebazaar_recent_md5_2023-11-23.txt"],
    intervalMinutes: HOUR,
    enabledByDefault: true,
    staleAfterHours: 48,
    read: readMalwareBazaar,
    createImporter: additions,
    recordDate: sightingDate,
  },
  {
    name: "tweetfeed",
    title: "TweetFeed",
    defaultLocations: ["https://raw.githubusercontent.com/0xDanielLopez/TweetFeed/master/month.csv"],
    mirrorPaths: [
      "tweetfeed/tweetfeed_daily_2024.csv.gz",
      "tweetfeed/tweetfeed_daily_2025.csv.gz",
      "tweetfeed/tweetfeed_daily_2026.csv.gz",
      "tweetfeed/tweetfeed_misp_feed.tar.gz",
      "tweetfeed/tweetfeed_stix21_week.json.gz",
    ],
    publisherNames: ["month.csv"],
    intervalMinutes: 6 * HOUR,
    enabledByDefault: true,
    staleAfterHours: 72,
    read: readTweetFeed,
    createImporter: additions,
    readWhole: (location) => !isMispFeedLocation(location),
    recordDate: sightingDate,
  },
  {
    name: "signature-base",
    title: "signature-base IOCs (Florian Roth)",
    defaultLocations: [
      "https://raw.githubusercontent.com/Neo23x0/signature-base/master/iocs/c2-iocs.txt",
      "https://raw.githubusercontent.com/Neo23x0/signature-base/master/iocs/hash-iocs.txt",
    ],
    mirrorPaths: ["signature-base-iocs/"],
    publisherNames: ["c2-iocs.txt", "hash-iocs.txt"],
    intervalMinutes: DAY,
    enabledByDefault: true,
    // Curated lists, updated every few weeks.
    staleAfterHours: 90 * 24,
    read: readSignatureBase,
    createImporter: completeList,
    recordDate: sightingDate,
  },
  {
    name: "maltrail",
    title: "Maltrail static trails",
    defaultLocations: ["https://github.com/stamparm/maltrail/archive/refs/heads/master.tar.gz"],
    mirrorPaths: ["maltrail/maltrail_trails_static.tar.gz"],
    publisherNames: ["maltrail-master.tar.gz"],
    intervalMinutes: DAY,
    enabledByDefault: true,
    staleAfterHours: 7 * 24,
    read: readMaltrail,
    createImporter: completeList,
    recordDate: sightingDate,
  },
  {
    name: "misp-warninglists",
    title: "MISP warninglists",
    defaultLocations: ["https://github.com/MISP/misp-warninglists/archive/refs/heads/main.tar.gz"],
    mirrorPaths: ["misp-warninglists/lists"],
    publisherNames: ["misp-warninglists-main.tar.gz"],
    intervalMinutes: DAY,
    enabledByDefault: true,
    staleAfterHours: 30 * 24,
    read: readWarninglists,
    createImporter: warninglistImporter,
  },
];

export function getSource(name: string): SourceDefinition | undefined {
  return SOURCES.find((source) => source.name === name);
}

/** "cisa-kev" → "CISA_KEV", the infix of the source's environment variables. */
export function envKey(name: string): string {
  return name.toUpperCase().replace(/[^A-Z0-9]+/g, "_");
}
