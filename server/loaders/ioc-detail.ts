import type { LoaderFunctionArgs } from "react-router";
import { parseIndicator } from "../../shared/ioc/detect";
import type { IocDetailData } from "../../shared/ioc-radar/detail-types";
import { throwNotFound } from "../../shared/routes/route-errors";
import type { RequestContext } from "../http/request-context";

/** Runs after the canonical-ioc middleware, so `params.ioc` is a canonical value; an unseen one still gets its page. */
export async function loadIocDetail({ params, request }: LoaderFunctionArgs, { iocs, now }: RequestContext): Promise<IocDetailData> {
  const read = parseIndicator(params.ioc ?? "");
  if (!read) throwNotFound(new URL(request.url).pathname);
  return iocs.detail(read, now());
}
