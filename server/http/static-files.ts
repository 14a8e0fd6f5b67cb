import { readdirSync } from "node:fs";
import express, { Router } from "express";

/**
 * The client build: hashed assets cached for a year, and the few files at its
 * root (favicon, robots.txt) for a day. The root files are listed once, at
 * start-up: a static middleware mounted on `/` would otherwise look on disk
 * for every page and API path first (a `stat` per request, which under load
 * cost more than serving a cached page).
 */
export function staticFiles(clientDir: string): Router {
  const router = Router();
  router.use("/assets", express.static(`${clientDir}/assets`, { immutable: true, maxAge: "1y", index: false }));
  const rootFiles = readdirSync(clientDir, { withFileTypes: true })
    .filter((entry) => entry.isFile() && !entry.name.startsWith("."))
    .map((entry) => `/${entry.name}`);
  if (rootFiles.length > 0) router.get(rootFiles, express.static(clientDir, { index: false, maxAge: "1d", dotfiles: "ignore" }));
  return router;
}
