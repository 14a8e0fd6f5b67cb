import type { data, LoaderFunctionArgs } from "react-router";
import { pageRoutes, type PageId, type ProductPage } from "../../shared/routes/page-routes";
import type { PageData, PageRoute } from "../../shared/routes/types";
import { throwNotFound, throwStatus } from "../../shared/routes/route-errors";
import type { RequestContext } from "../http/request-context";
import { loadCveDetail } from "./cve-detail";
import { loadCveList } from "./cve-list";
import { loadHome } from "./home";
import { loadIocDetail } from "./ioc-detail";
import { loadIocList } from "./ioc-list";

/** What a loader may return for data `D`: the data itself, or the data with a status (`data(d, { status })`). */
type LoaderResult<D> = D | ReturnType<typeof data<D>>;

export type ServerPageLoader<D> = (args: LoaderFunctionArgs, context: RequestContext) => Promise<LoaderResult<D>>;

/**
 * One loader per page of the route table, returning that page's data. The
 * typecheck fails when a page has no loader, a loader names no page, or a
 * loader returns other data than its page declares.
 */
export type ServerPageLoaders = { [Page in ProductPage as Page["id"]]: ServerPageLoader<PageData<Page>> };

const loaders = {
  home: (_args, context) => loadHome(context),
  "cve-list": loadCveList,
  "cve-detail": loadCveDetail,
  "ioc-list": loadIocList,
  "ioc-detail": loadIocDetail,
} satisfies ServerPageLoaders;

const pageIds: ReadonlySet<string> = new Set(pageRoutes.map((page) => page.id));
function isPageId(id: string): id is PageId {
  return pageIds.has(id);
}

/**
 * Binds each page of the route table to its database loader. Tests may render
 * tables of their own; they reuse the product's ids, which is what this
 * looks up.
 */
export function loadPageOnServer(args: LoaderFunctionArgs, page: PageRoute, context: RequestContext): Promise<unknown> {
  if (!isPageId(page.id)) throw new Error(`No server loader for page "${page.id}"`);
  const loader: ServerPageLoader<unknown> = loaders[page.id];
  return loader(args, context);
}

export function rootLoaderOnServer({ request }: LoaderFunctionArgs, { forcedError }: RequestContext): null {
  if (forcedError) throwStatus(forcedError.status, forcedError.message);
  // The router reads "//" as "/": a path with an empty segment names no page, whatever it would match.
  const { pathname } = new URL(request.url);
  if (pathname.includes("//")) throwNotFound(pathname);
  return null;
}
