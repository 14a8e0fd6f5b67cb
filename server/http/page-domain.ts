import type { DataDomain } from "../db/data-domains";
import { PAYLOAD_SUFFIX } from "./payload-handler";

/**
 * The one domain a page (or its payload, `<page path>/_payload.json`) shows,
 * or null when it shows both. The CVE radar's list shows CVEs alone; the IOC
 * radar's list and an indicator's page show indicators alone (an indicator's
 * CVE links are ids its own feeds gave it). A CVE's page lists its related
 * indicators, and the home page both radars: those depend on both, as does
 * any other path.
 */
export function pageDomain(pathname: string): DataDomain | null {
  const page = pathname.endsWith(PAYLOAD_SUFFIX) ? pathname.slice(0, -PAYLOAD_SUFFIX.length) : pathname;
  if (page === "/cve-radar") return "cve";
  if (page === "/ioc-radar" || page.startsWith("/ioc-radar/")) return "ioc";
  return null;
}
