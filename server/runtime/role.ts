/**
 * What one server process does (SERVER_ROLE). `all` is the single-node
 * default; scaling out runs any number of `web` nodes behind a load balancer
 * and one `worker` that imports the feeds (on PostgreSQL the import lock
 * keeps a second worker, or several `all` nodes, from importing at once).
 */
export const SERVER_ROLES = ["all", "web", "worker"] as const;
export type ServerRole = (typeof SERVER_ROLES)[number];

/** Whether the process serves the site, its API and its static files. */
export function servesSite(role: ServerRole): boolean {
  return role !== "worker";
}

/** Whether the process runs the feed import schedule. */
export function runsImports(role: ServerRole): boolean {
  return role !== "web";
}
