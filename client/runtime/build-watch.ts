import type { $Fetch } from "ofetch";
import { createPath, type createBrowserRouter } from "react-router";
import type { BuildInfo } from "../../shared/config/public-config";
import { BUILD_CHECK_INTERVAL_MS, BUILDS_PATH, MANIFEST_PREFETCH_DELAY_MS } from "../../shared/constants";
import { isUpdateAvailable, markUpdateAvailable } from "../../shared/state/update-available";

type DataRouter = ReturnType<typeof createBrowserRouter>;

/**
 * Prefetches this build's manifest shortly after start, then asks every hour
 * whether a newer build is live. Once one is, the next navigation becomes a
 * full page load so the tab picks up the new code.
 */
export function watchForNewBuild(http: $Fetch, build: BuildInfo, router: DataRouter): void {
  window.setTimeout(() => {
    http(`${BUILDS_PATH}/meta/${encodeURIComponent(build.id)}.json`).catch(() => undefined);
  }, MANIFEST_PREFETCH_DELAY_MS);

  window.setInterval(async () => {
    try {
      const latest = await http<BuildInfo>(`${BUILDS_PATH}/latest.json?${Date.now()}`);
      if (latest.id !== build.id) markUpdateAvailable();
    } catch {
      // Offline or the server is restarting: ask again at the next interval.
    }
  }, BUILD_CHECK_INTERVAL_MS);

  router.subscribe((state) => {
    const next = state.navigation.location;
    if (isUpdateAvailable() && state.navigation.state === "loading" && next) {
      window.location.assign(createPath(next));
    }
  });
}
