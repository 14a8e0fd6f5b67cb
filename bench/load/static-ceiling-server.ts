import { readFileSync } from "node:fs";
import express from "express";
import { loadEnv } from "../../server/config/env";
import { responseCompression } from "../../server/http/compression";

/**
 * The static ceiling of `npm run bench:load` (issue 9, item 4): the HTML of one
 * page, fetched once from the real server, served from memory by a minimal
 * Express app through the site's own compression middleware. The cached page
 * of the real server cannot be served faster than this on the same machine.
 * Started by servers.ts as a process of its own, like the real server.
 */
const { PORT, CEILING_BODY_FILE, CEILING_CONTENT_TYPE } = process.env;
if (!PORT || !CEILING_BODY_FILE || !CEILING_CONTENT_TYPE) {
  throw new Error("PORT, CEILING_BODY_FILE and CEILING_CONTENT_TYPE are required (bench/load/servers.ts sets them)");
}
const body = readFileSync(CEILING_BODY_FILE);

const app = express();
app.disable("x-powered-by");
// The real server sends no ETag on pages; hashing the body per request would be work it does not do.
app.set("etag", false);
// The level the server under test uses for responses it compresses as it sends them.
app.use(responseCompression(loadEnv({ COMPRESSION_LEVEL: process.env.COMPRESSION_LEVEL }).COMPRESSION_LEVEL));
app.get("/{*path}", (_req, res) => {
  res.set({ "Content-Type": CEILING_CONTENT_TYPE, "Cache-Control": "private, no-cache" }).send(body);
});

const server = app.listen(Number(PORT), "127.0.0.1");
const stop = () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
