import type { Server } from "node:http";
import type { Express } from "express";

export class ListenError extends Error {
  override name = "ListenError";
}

/** What an operator should change, by the error Node reports when binding. */
function explain(error: NodeJS.ErrnoException, host: string, port: number): string {
  const where = `${host}:${port}`;
  switch (error.code) {
    case "EADDRINUSE":
      return `PORT=${port}: ${where} is already in use by another process; stop it or choose another PORT`;
    case "EADDRNOTAVAIL":
      return `HOST=${host}: this machine has no such address; use one of its addresses, 127.0.0.1 or 0.0.0.0`;
    case "EACCES":
      return `PORT=${port}: permission denied binding ${where}; ports below 1024 need privileges, choose a PORT of 1024 or more behind a reverse proxy`;
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return `HOST=${host}: the name does not resolve to an address of this machine`;
    default:
      return `cannot listen on ${where} (HOST=${host}, PORT=${port}): ${error.message}`;
  }
}

/**
 * Listens, and settles only once the socket is bound: Express 5 hands a bind
 * error to the listen callback rather than throwing, so without this a server
 * whose port is taken would log "listening" and serve nothing.
 */
export function listen(app: Express, port: number, host: string): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = app.listen(port, host, (error?: Error) => {
      if (error) reject(new ListenError(explain(error as NodeJS.ErrnoException, host, port), { cause: error }));
      else resolve(server);
    });
  });
}
