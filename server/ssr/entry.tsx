import { StrictMode } from "react";
import { renderToPipeableStream, type PipeableStream, type RenderToPipeableStreamOptions } from "react-dom/server";
import {
  createStaticHandler,
  createStaticRouter,
  StaticRouterProvider,
  type StaticHandlerContext,
} from "react-router";
import type { BootState } from "../../shared/config/public-config";
import { createRoutes, type RouteBindings } from "../../shared/routes/create-routes";
import { documentMeta } from "../../shared/routes/document-meta";
import { pageRoutes } from "../../shared/routes/page-routes";
import type { PageMeta, PageRoute } from "../../shared/routes/types";
import { BootContext } from "../../shared/ui/boot/boot-context";

export interface SsrRendererOptions {
  loadPage: RouteBindings["loadPage"];
  /** Runs on the server only, before any page loader (e.g. to raise a 429). */
  rootLoader?: RouteBindings["rootLoader"];
  /** Tests swap the page table; the product uses the five pages. */
  pages?: readonly PageRoute[];
}

export interface RenderOptions extends Pick<RenderToPipeableStreamOptions, "onShellReady" | "onShellError" | "onError" | "onAllReady"> {
  boot: BootState;
  nonce: string;
  bootstrapModules: string[];
}

export interface SsrRenderer {
  /** Path patterns of the pages, for the build manifest. */
  routePatterns: string[];
  query(request: Request, requestContext: unknown): Promise<StaticHandlerContext | Response>;
  meta(context: StaticHandlerContext, boot: BootState): PageMeta;
  /** Ids of the page routes a context rendered, to preload their chunks. */
  pageIds(context: StaticHandlerContext): string[];
  render(context: StaticHandlerContext, options: RenderOptions): PipeableStream;
}

/**
 * The server half of the shared route table. One static handler per process;
 * a static router per request.
 */
export function createSsrRenderer(options: SsrRendererOptions): SsrRenderer {
  const pages = options.pages ?? pageRoutes;
  const handler = createStaticHandler(
    createRoutes({ pages, loadPage: options.loadPage, rootLoader: options.rootLoader }),
  );
  const pageIdSet = new Set(pages.map((page) => page.id));

  return {
    routePatterns: pages.map((page) => page.path),
    query: (request, requestContext) => handler.query(request, { requestContext }),
    meta: (context, boot) =>
      documentMeta({
        matches: context.matches,
        loaderData: context.loaderData,
        errors: context.errors,
        siteName: boot.config.siteName,
        supportEmail: boot.config.supportEmail,
      }),
    pageIds: (context) => context.matches.map((match) => match.route.id).filter((id) => pageIdSet.has(id)),
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
