import { StrictMode } from "react";
import { renderToPipeableStream, type PipeableStream, type RenderToPipeableStreamOptions } from "react-dom/server";
import { createStaticHandler, createStaticRouter, StaticRouterProvider, type LoaderFunctionArgs, type StaticHandlerContext } from "react-router";
import type { BootState } from "../../shared/config/public-config";
import { createRoutes } from "../../shared/routes/create-routes";
import { documentMeta } from "../../shared/routes/document-meta";
import { pageRoutes } from "../../shared/routes/page-routes";
import type { PageMeta, PageRoute } from "../../shared/routes/types";
import { BootContext } from "../../shared/ui/boot/boot-context";

/**
 * `Context` is what the server hands each request's loaders (the database,
 * the clock …): `query` takes it and the loaders receive it, typed, although
 * it crosses from the server process into the separately built SSR bundle.
 */
export interface SsrRendererOptions<Context> {
  loadPage: (args: LoaderFunctionArgs, page: PageRoute, context: Context) => Promise<unknown>;
  /** Runs on the server only, before any page loader (e.g. to raise a 429). */
  rootLoader?: (args: LoaderFunctionArgs, context: Context) => unknown;
  /** Tests swap the page table; the product uses the five pages. */
  pages?: readonly PageRoute[];
}

export interface RenderOptions extends Pick<RenderToPipeableStreamOptions, "onShellReady" | "onShellError" | "onError" | "onAllReady"> {
  boot: BootState;
  nonce: string;
  bootstrapModules: string[];
}

export interface SsrRenderer<Context> {
  /** Path patterns of the pages, for the build manifest. */
  routePatterns: string[];
  query(request: Request, context: Context): Promise<StaticHandlerContext | Response>;
  meta(context: StaticHandlerContext, boot: BootState): PageMeta;
  /** Source modules of the pages a context rendered (their manifest keys), to preload their chunks. */
  pageModules(context: StaticHandlerContext): string[];
  render(context: StaticHandlerContext, options: RenderOptions): PipeableStream;
}

/**
 * The server half of the shared route table. One static handler per process;
 * a static router per request.
 */
export function createSsrRenderer<Context>(options: SsrRendererOptions<Context>): SsrRenderer<Context> {
  const pages: readonly PageRoute[] = options.pages ?? pageRoutes;
  // The static handler passes every loader the requestContext that query() was given, which is a Context.
  const contextOf = (args: LoaderFunctionArgs) => args.context as Context;
  const { rootLoader } = options;
  const handler = createStaticHandler(
    createRoutes({
      pages,
      loadPage: (args, page) => options.loadPage(args, page, contextOf(args)),
      rootLoader: rootLoader && ((args) => rootLoader(args, contextOf(args))),
    }),
  );
  const moduleById = new Map(pages.map((page) => [page.id, page.module]));

  return {
    routePatterns: pages.map((page) => page.path),
    query: (request, context) => handler.query(request, { requestContext: context }),
    meta: (context, boot) =>
      documentMeta({
        matches: context.matches,
        loaderData: context.loaderData,
        errors: context.errors,
        siteName: boot.config.siteName,
        supportEmail: boot.config.supportEmail,
      }),
    pageModules: (context) => context.matches.flatMap((match) => moduleById.get(match.route.id) ?? []),
    render(context, { boot, nonce, bootstrapModules, ...callbacks }) {
      const router = createStaticRouter(handler.dataRoutes, context);
      return renderToPipeableStream(
        <StrictMode>
          <BootContext.Provider value={boot}>
            <StaticRouterProvider router={router} context={context} nonce={nonce} />
          </BootContext.Provider>
        </StrictMode>,
        { nonce, bootstrapModules, ...callbacks },
      );
    },
  };
}
