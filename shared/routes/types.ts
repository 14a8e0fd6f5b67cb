import type { ComponentType } from "react";
import type { LoaderFunctionArgs, Params } from "react-router";

export interface PageMeta {
  title: string;
  description: string;
}

/** What a lazily loaded page module exports. */
export interface PageModule {
  Component: ComponentType;
  meta: (data: unknown, params: Params) => PageMeta;
}

export interface PageRoute {
  id: string;
  /** Full path pattern, e.g. "/cve-radar/:cve". */
  path: string;
  load: () => Promise<PageModule>;
  /** Names from the route-middleware registry, run in order before the loader. */
  middleware?: readonly string[];
  /** A failing check raises a 404 before any data is loaded. */
  validate?: (params: Params) => boolean;
}

/**
 * Runs before a page's loader, on the server and in the browser alike. It may
 * throw a redirect or an error response; returning lets the load continue.
 */
export type RouteMiddleware = (args: LoaderFunctionArgs) => void | Promise<void>;

export type PageLoader = (args: LoaderFunctionArgs, route: PageRoute) => Promise<unknown>;
