import "./styles/app.css";
import { StrictMode, useEffect } from "react";
import { hydrateRoot } from "react-dom/client";
import { createBrowserRouter, matchRoutes, RouterProvider, type RouteObject } from "react-router";
import { BOOT_STATE_GLOBAL } from "../shared/config/public-config";
import { createRoutes } from "../shared/routes/create-routes";
import { pageRoutes } from "../shared/routes/page-routes";
import { BootContext } from "../shared/ui/boot/boot-context";
import { BotCheckContext } from "../shared/ui/boot/bot-check-context";
import { payloadLoader } from "./data/payload-loader";
import { createHttpClient } from "../shared/http/http-client";
import { executeBotCheck, registerBotCheck } from "./runtime/bot-check";
import { watchForNewBuild } from "./runtime/build-watch";
import { reloadOnceOnChunkFailure } from "./runtime/chunk-reload";
import { syncDocumentMeta } from "./runtime/apply-document-meta";
import { readHydrationData } from "./runtime/hydration-data";
import { installNavigationGuard } from "./runtime/navigation-guard";
import { injectTagManager } from "./runtime/tag-manager";

const ROOT_ELEMENT_ID = "root";

function HydrationMarker() {
  useEffect(() => {
    document.getElementById(ROOT_ELEMENT_ID)?.setAttribute("data-hydration", "hydrated");
  }, []);
  return null;
}

/** Lazy page modules that match the URL load before hydrating, so hydration is synchronous. */
async function resolveMatchedLazyRoutes(routes: RouteObject[]): Promise<void> {
  const matches = matchRoutes(routes, window.location) ?? [];
  await Promise.all(
    matches
      .filter((match) => match.route.lazy)
      .map(async ({ route }) => {
        const resolved = await (route.lazy as () => Promise<Partial<RouteObject>>)();
        Object.assign(route, { ...resolved, lazy: undefined });
      }),
  );
}

async function start(): Promise<void> {
  const boot = window[BOOT_STATE_GLOBAL];
  const container = document.getElementById(ROOT_ELEMENT_ID);
  if (!boot || !container) throw new Error("The page is missing its boot state or root element");

  const http = createHttpClient(boot.config.apiBaseUrl);
  const routes = createRoutes({
    pages: pageRoutes,
    loadPage: payloadLoader(http, boot.build.id),
    wrapLazy: reloadOnceOnChunkFailure({
      storage: window.sessionStorage,
      reload: () => window.location.reload(),
      now: Date.now,
    }),
  });
  await resolveMatchedLazyRoutes(routes);
  const router = createBrowserRouter(routes, { hydrationData: readHydrationData() });

  installNavigationGuard(boot.config);
  syncDocumentMeta(router, boot.config);
  watchForNewBuild(http, boot.build, router);
  registerBotCheck(boot.config.botCheckSiteKey);
  injectTagManager(boot.config.tagManagerIds);

  hydrateRoot(
    container,
    <StrictMode>
      <BootContext.Provider value={boot}>
        <BotCheckContext.Provider value={executeBotCheck}>
          <RouterProvider router={router} />
          <HydrationMarker />
        </BotCheckContext.Provider>
      </BootContext.Provider>
    </StrictMode>,
  );
}

void start();
