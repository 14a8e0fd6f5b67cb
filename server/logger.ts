import { createRequire } from "node:module";
import pino, { type DestinationStream, type Logger } from "pino";

export type LogFormat = "auto" | "pretty" | "json";

const require = createRequire(import.meta.url);

function formatFrom(value: string | undefined): LogFormat {
  return value === "pretty" || value === "json" ? value : "auto";
}

/**
 * JSON lines for machines (a file, a pipe, journald, a container's log) and
 * pino-pretty's readable lines for a person at a terminal. The default follows
 * LOG_FORMAT, which the import process inherits from the server.
 */
export function createLogger(
  level: string,
  format: LogFormat = formatFrom(process.env.LOG_FORMAT),
  destination: NodeJS.WritableStream & { isTTY?: boolean } = process.stdout,
): Logger {
  const options = { level, base: { service: "threat-radar" } };
  const pretty = format === "pretty" || (format === "auto" && destination.isTTY === true);
  if (!pretty) return destination === process.stdout ? pino(options) : pino(options, destination as DestinationStream);
  // Loaded only when wanted: production (JSON) never pays for it.
  const prettyStream = require("pino-pretty") as typeof import("pino-pretty");
  return pino(
    options,
    prettyStream({ destination, colorize: destination.isTTY === true, sync: true, ignore: "service,pid,hostname", translateTime: "SYS:HH:MM:ss.l" }),
  );
}
