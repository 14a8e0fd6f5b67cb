import type { LoaderFunction, LoaderFunctionArgs, RouteObject } from "react-router";
import { ErrorScreen } from "../ui/error/ErrorScreen";
import { Layout } from "../ui/layout/Layout";
import { throwNotFound } from "./route-errors";
import { routeMiddleware as defaultMiddleware } from "./middleware";
import type { PageLoader, PageModule, PageRoute, RouteMiddleware } from "./types";

export interface RouteBindings {
  pages: readonly PageRoute[];
  /** Where a page's data comes from: the database on the server, `_payload.json` in the browser. */
  loadPage: PageLoader;
  /** Lets the browser wrap chunk loading (reload once when a deployment removed the chunk). */
  wrapLazy?: (load: () => Promise<PageModule>) => () => Promise<PageModule>;
  middleware?: Readonly<Record<string, RouteMiddleware>>;
  /** Server only: runs before every page, e.g. to answer a rate-limited request with the 429 screen. */
  rootLoader?: LoaderFunction;
}

export const ROOT_ROUTE_ID = "root";

/** Never shown: its loader always raises the 404 that the error screen renders. */
function NotFound() {
  return null;
}
export const NOT_FOUND_ROUTE_ID = "not-found";

function resolveMiddleware(page: PageRoute, registry: Readonly<Record<string, RouteMiddleware>>): RouteMiddleware[] {
  return (page.middleware ?? []).map((name) => {
    const middleware = registry[name];
    if (!middleware) throw new Error(`Route "${page.path}" names unknown middleware "${name}"`);
    return middleware;
  });
}

function pageLoader(page: PageRoute, bindings: RouteBindings): LoaderFunction {
  const middleware = resolveMiddleware(page, bindings.middleware ?? defaultMiddleware);
  return async (args: LoaderFunctionArgs) => {
    if (page.validate && !page.validate(args.params)) throwNotFound(new URL(args.request.url).pathname);
    for (const run of middleware) await run(args);
    return bindings.loadPage(args, page);
  };
}

function toRouteObject(page: PageRoute, bindings: RouteBindings): RouteObject {
  const load = bindings.wrapLazy ? bindings.wrapLazy(page.load) : page.load;
  const location = page.path === "/" ? { index: true as const } : { path: page.path.slice(1) };
  return {
    ...location,
    id: page.id,
    loader: pageLoader(page, bindings),
    lazy: async () => {
      const module = await load();
      return { Component: module.Component, handle: { meta: module.meta } };
    },
  };
}

/**
 * Builds the one route table that the server and the browser share. Unknown
 * middleware names throw here, i.e. when the server starts, not per request.
 */
export function createRoutes(bindings: RouteBindings): RouteObject[] {
  return [
    {
      id: ROOT_ROUTE_ID,
      path: "/",
      Component: Layout,
      ErrorBoundary: ErrorScreen,
      loader: bindings.rootLoader,
      children: [
        ...bindings.pages.map((page) => toRouteObject(page, bindings)),
        {
          id: NOT_FOUND_ROUTE_ID,
          path: "*",
          Component: NotFound,
          loader: ({ request }) => throwNotFound(new URL(request.url).pathname),
        },
      ],
    },
  ];
}
