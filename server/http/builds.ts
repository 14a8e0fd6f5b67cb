import { Router } from "express";
import type { BuildInfo, BuildManifest } from "../../shared/config/public-config";
import { BUILDS_PATH } from "../../shared/constants";

export interface BuildRoutesOptions {
  build: BuildInfo;
  routePatterns: string[];
  prerendered?: string[];
}

/**
 * `latest.json` tells browsers (and health checks) which build is live; the
 * per-id manifest never changes for an id, so it is cached for a year.
 */
export function buildRoutes({ build, routePatterns, prerendered = [] }: BuildRoutesOptions): Router {
  const router = Router();
  const manifest: BuildManifest = { ...build, routes: routePatterns, prerendered };

  router.get(`${BUILDS_PATH}/latest.json`, (_req, res) => {
    res.set("Cache-Control", "no-cache, no-store, must-revalidate").json(build);
  });
  router.get(`${BUILDS_PATH}/meta/:file`, (req, res) => {
    if (req.params.file !== `${build.id}.json`) {
      res
        .status(404)
        .set("Cache-Control", "no-cache")
        .json({ error: { statusCode: 404, message: "Unknown build id" } });
      return;
    }
    res.set("Cache-Control", "public, max-age=31536000, immutable").json(manifest);
  });
  return router;
}
