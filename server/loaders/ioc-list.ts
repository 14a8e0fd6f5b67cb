import { data, type LoaderFunctionArgs } from "react-router";
import { iocListParamsSchema } from "../../shared/ioc-radar/list-params";
import { LOOKUP_PARAM } from "../../shared/ioc-radar/lookup-types";
import { parseQueryLeniently } from "../../shared/query/params";
import type { RequestContext } from "../http/request-context";

/** A bad parameter is dropped and named on the page, which answers 400: the request was not as meant. */
export async function loadIocList({ request }: LoaderFunctionArgs, { iocs, now }: RequestContext) {
  const search = new URL(request.url).searchParams;
  const lookupText = search.get(LOOKUP_PARAM)?.trim() || null;
  search.delete(LOOKUP_PARAM);
  const { params, problems } = parseQueryLeniently(iocListParamsSchema, search);
  const clock = now();
  const [list, stats, freshness, facets] = await Promise.all([iocs.list(params, clock), iocs.stats(params, clock), iocs.freshness(clock), iocs.facets()]);
  return data({ params, problems, list, stats, freshness, facets, lookupText, generatedAt: clock.toISOString() }, { status: problems.length > 0 ? 400 : 200 });
}
