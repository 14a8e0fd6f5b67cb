import type { LoaderFunctionArgs } from "react-router";
import { iocListParamsSchema } from "../../shared/ioc-radar/list-params";
import { LOOKUP_PARAM } from "../../shared/ioc-radar/lookup-types";
import type { IocListData } from "../../shared/ioc-radar/list-types";
import { parseQueryLeniently } from "../../shared/query/params";
import type { RequestContext } from "../http/request-context";

export async function loadIocList({ request }: LoaderFunctionArgs, { iocs, now }: RequestContext): Promise<IocListData> {
  const search = new URL(request.url).searchParams;
  const lookupText = search.get(LOOKUP_PARAM)?.trim() || null;
  search.delete(LOOKUP_PARAM);
  const { params, problems } = parseQueryLeniently(iocListParamsSchema, search);
  const clock = now();
  const [list, stats, freshness, facets] = await Promise.all([iocs.list(params, clock), iocs.stats(params, clock), iocs.freshness(clock), iocs.facets()]);
  return { params, problems, list, stats, freshness, facets, lookupText, generatedAt: clock.toISOString() };
}
