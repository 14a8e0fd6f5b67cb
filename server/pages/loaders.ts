import type { LoaderFunctionArgs } from "react-router";
import type { PageLoader } from "../../shared/routes/types";
import { throwNotFound, throwStatus } from "../../shared/routes/errors";
import type { RequestContext } from "../http/request-context";
import { loadCveDetail } from "./cve-detail";
import { loadCveList } from "./cve-list";
import { loadHome } from "./home";
import { loadIocDetail } from "./ioc-detail";
import { loadIocList } from "./ioc-list";

type ServerPageLoader = (args: LoaderFunctionArgs, context: RequestContext) => Promise<unknown>;

const loaders: Record<string, ServerPageLoader> = {
  home: (_args, context) => loadHome(context),
  "cve-list": loadCveList,
  "cve-detail": loadCveDetail,
  "ioc-list": loadIocList,
  "ioc-detail": loadIocDetail,
};

/** Binds each page of the route table to its database loader. */
export const loadPageOnServer: PageLoader = (args, page) => {
  const loader = loaders[page.id];
  if (!loader) throw new Error(`No server loader for page "${page.id}"`);
  return loader(args, args.context as RequestContext);
};

export const rootLoaderOnServer = ({ context, request }: LoaderFunctionArgs) => {
  const { forcedError } = context as RequestContext;
  if (forcedError) throwStatus(forcedError.status, forcedError.message);
  // The router reads "//" as "/": a path with an empty segment names no page, whatever it would match.
  const { pathname } = new URL(request.url);
  if (pathname.includes("//")) throwNotFound(pathname);
  return null;
};
