import { resolve } from "node:path";

export const PROJECT_ROOT = resolve(import.meta.dirname, "../..");
export const DIST_DIR = resolve(PROJECT_ROOT, "dist");
/** The feed snapshots; never copied into the repository. */
export const DATA_DIR = process.env.THREAT_RADAR_DATA_DIR ?? resolve(PROJECT_ROOT, "../shared/data");
