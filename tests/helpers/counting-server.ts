import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface CountingServer {
  url: string;
  hits(path: string): number;
  close(): Promise<void>;
}

/**
 * A loopback HTTP server that answers `/status/<code>` with that status and a
 * JSON body, and counts the requests per path.
 */
export async function startCountingServer(): Promise<CountingServer> {
  const counts = new Map<string, number>();
  const server: Server = createServer((req: IncomingMessage, res) => {
    const path = (req.url ?? "/").split("?")[0]!;
    counts.set(path, (counts.get(path) ?? 0) + 1);
    const status = Number(/^\/status\/(\d{3})$/.exec(path)?.[1] ?? 200);
    req.resume();
    req.on("end", () => {
      res.writeHead(status, { "Content-Type": "application/json" });
      res.end(JSON.stringify({ status, method: req.method }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    hits: (path) => counts.get(path) ?? 0,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
