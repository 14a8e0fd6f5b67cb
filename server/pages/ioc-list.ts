import type { LoaderFunctionArgs } from "react-router";
import { iocListParamsSchema } from "../../shared/ioc-radar/list-params";
import type { IocListData } from "../../shared/ioc-radar/list-types";
import { parseQueryLeniently } from "../../shared/query/params";
import type { RequestContext } from "../http/request-context";

export async function loadIocList({ request }: LoaderFunctionArgs, { iocs, now }: RequestContext): Promise<IocListData> {
  const { params, problems } = parseQueryLeniently(iocListParamsSchema, new URL(request.url).searchParams);
  const clock = now();
  const [list, stats, freshness, facets] = await Promise.all([iocs.list(params, clock), iocs.stats(params, clock), iocs.freshness(), iocs.facets()]);
  return { params, problems, list, stats, freshness, facets, generatedAt: clock.toISOString() };
}
