import type { Kysely } from "kysely";
import { defang } from "../../shared/ioc/defang";
import type { extractIndicators } from "../../shared/ioc/extract";
import { canonicalIndicatorPath } from "../../shared/ioc/indicator-path";
import type { WarninglistMatcher } from "./warninglist-match";
import { LOOKUP_MAX_INDICATORS, type LookupResponse, type LookupResult, type LookupVerdict } from "../../shared/ioc-radar/lookup-types";
import { scoreIndicator } from "../../shared/scoring/ioc-score";
import type { Database } from "../db/schema";
import { sightingsOf } from "./list";
import { slashTwin } from "../../shared/ioc/url";

const VALUE_BATCH = 500;
/** Results classified between two turns of the event loop. */
const CLASSIFY_BATCH = 500;

export type FoundIndicators = ReturnType<typeof extractIndicators>;

export class TooManyIndicatorsError extends Error {
  override name = "TooManyIndicatorsError";
}

const emptyCounts = (): Record<LookupVerdict, number> => ({ known: 0, unknown: 0, "benign-listed": 0 });

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Classifies every indicator extracted from a pasted text: benign-listed (a
 * warninglist matches, whether a feed knows it or not), known (a feed
 * reported it), or unknown. Extraction itself runs on a worker thread
 * (server/ioc/extract-pool.ts); `found` holds at most one indicator more than
 * the limit, which makes the lookup refuse the text.
 */
export async function lookupIndicators(db: Kysely<Database>, found: FoundIndicators, matcher: WarninglistMatcher, now: Date): Promise<LookupResponse> {
  if (found.length > LOOKUP_MAX_INDICATORS) throw new TooManyIndicatorsError(`more than ${LOOKUP_MAX_INDICATORS} indicators`);

  const known = new Map<string, { id: number; malware: string | null }>();
  // An ip:port or a scheme-less host/path as written is also looked up as the
  // bare host some feeds file it under (see Found.address).
  const addressOf = (item: FoundIndicators[number]) => item.address;
  // A URL is also looked up with its path's trailing slash toggled ("…/gate" and "…/gate/").
  const twins = found.map((item) => slashTwin(item));
  const values = [
    ...new Set(found.flatMap((item, index) => [item, twins[index], addressOf(item)].flatMap((indicator) => (indicator ? [indicator.value] : [])))),
  ];
  for (let start = 0; start < values.length; start += VALUE_BATCH) {
    const rows = await db
      .selectFrom("indicators")
      .select(["id", "type", "value", "malware_family"])
      .where("value", "in", values.slice(start, start + VALUE_BATCH))
      .execute();
    for (const row of rows) known.set(`${row.type} ${row.value}`, { id: Number(row.id), malware: row.malware_family });
  }
  const sightings = await sightingsOf(
    db,
    [...known.values()].map((k) => k.id),
  );

  const byVerdict = emptyCounts();
  const byType: Record<string, Record<LookupVerdict, number>> = {};
  const results: LookupResult[] = [];
  for (const [index, item] of found.entries()) {
    // Ten thousand warninglist matches take a while: let other requests through meanwhile.
    if (index > 0 && index % CLASSIFY_BATCH === 0) await nextTurn();
    const address = addressOf(item);
    const twin = twins[index];
    const own = known.get(`${item.type} ${item.value}`) ?? (twin ? known.get(`${twin.type} ${twin.value}`) : undefined);
    const record = own ?? (address ? known.get(`${address.type} ${address.value}`) : undefined);
    // A URL known only by its host links to the host's page: the URL's own page would say "not seen".
    const linked = own === undefined && record !== undefined && item.type === "url" && address ? address : item;
    const benignLists = matcher.match(item).map((match) => match.list);
    const score = scoreIndicator(record ? (sightings.get(record.id) ?? []) : [], now, benignLists.length > 0);
    const verdict: LookupVerdict = benignLists.length > 0 ? "benign-listed" : record ? "known" : "unknown";
    byVerdict[verdict] += 1;
    (byType[item.type] ??= emptyCounts())[verdict] += 1;
    results.push({
      input: item.original,
      type: item.type,
      value: item.value,
      display: defang(item),
      verdict,
      known: record !== undefined,
      score: record ? score.score : null,
      scoreVerdict: score.verdict,
      malwareFamily: record?.malware ?? null,
      sources: record ? [...new Set((sightings.get(record.id) ?? []).map((s) => s.source))].sort() : [],
      benignLists,
      link: canonicalIndicatorPath(linked.value) ?? `/ioc-radar/${encodeURIComponent(linked.value)}`,
    });
  }
  return { count: results.length, summary: { byVerdict, byType }, results };
}
