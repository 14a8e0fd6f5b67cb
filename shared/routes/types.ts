import type { ComponentType } from "react";
import type { LoaderFunctionArgs, Params } from "react-router";

export interface PageMeta {
  title: string;
  description: string;
}

/**
 * What a lazily loaded page module exports. `meta` is written as a method so
 * that a page's module, typed for its own data, still fits a table of pages
 * with other data (method parameters are compared bivariantly).
 */
export interface PageModule<Data = unknown> {
  Component: ComponentType;
  meta(data: Data | undefined, params: Params): PageMeta;
}

/**
 * One page of the product: its route, the data its loader must return and the
 * module that renders it. The data type has no value at run time; it rides on
 * `load`, whose module must accept it, and is read back with `PageData`.
 */
export interface PageDefinition<Id extends string = string, Data = unknown> {
  id: Id;
  /** Full path pattern, e.g. "/cve-radar/:cve". */
  path: string;
  /**
   * The page module's source path from the project root, which is also its key
   * in Vite's client manifest: the server preloads that chunk's files. A unit
   * test holds it to the module `load` imports; the server refuses to start on
   * a build whose manifest lacks it.
   */
  module: string;
  load: () => Promise<PageModule<Data>>;
  /** Names from the route-middleware registry, run in order before the loader. */
  middleware?: readonly string[];
  /** A failing check raises a 404 before any data is loaded. */
  validate?: (params: Params) => boolean;
}

/** Any page, whatever its data: what the route table and the renderer handle. */
export type PageRoute = PageDefinition<string, unknown>;

/** The data a page's loader returns and its component reads. */
export type PageData<Page> = Page extends PageDefinition<string, infer Data> ? Data : never;

/**
 * Runs before a page's loader, on the server and in the browser alike. It may
 * throw a redirect or an error response; returning lets the load continue.
 */
export type RouteMiddleware = (args: LoaderFunctionArgs) => void | Promise<void>;

export type PageLoader = (args: LoaderFunctionArgs, route: PageRoute) => Promise<unknown>;
