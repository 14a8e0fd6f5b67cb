import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface LoopbackSite {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  /** Paths (without query) requested so far, in order. */
  requests: string[];
  close(): Promise<void>;
}

/**
 * A tiny loopback HTTP server standing in for another site (the old site of
 * PUBLIC_OLD_BASE_URL, or any external site): every path answers a small
 * HTML page titled `<name> <path>` and is recorded.
 */
export async function startLoopbackSite(name: string): Promise<LoopbackSite> {
  const requests: string[] = [];
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0]!;
    requests.push(path);
    req.resume();
    if (path === "/favicon.ico") {
      res.writeHead(204).end();
      return;
    }
    const title = `${name} ${path}`.replace(/[<>&"]/g, "");
    res.writeHead(200, { "Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store" });
    res.end(`<!DOCTYPE html><html lang="en"><head><title>${title}</title></head><body><h1>${title}</h1></body></html>`);
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}
