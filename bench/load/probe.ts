import { fork } from "node:child_process";
import { resolve } from "node:path";
import type { ProbeSummary } from "./healthz-prober";

export type { ProbeSummary };

export interface HealthzProbe {
  /** Stops probing and returns what was seen. */
  stop(): Promise<ProbeSummary>;
}

/** Starts the `/healthz` prober (healthz-prober.ts) in a process of its own and resolves once it probes. */
export async function startHealthzProbe(baseUrl: string, intervalMs: number): Promise<HealthzProbe> {
  const child = fork(resolve(import.meta.dirname, "healthz-prober.ts"), [`${baseUrl}/healthz`, String(intervalMs)], {
    execArgv: ["--import", "tsx"],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const summary = new Promise<ProbeSummary>((resolveSummary, reject) => {
    child.on("message", (message) => {
      if (message && typeof message === "object" && "latencies" in message) resolveSummary(message as ProbeSummary);
    });
    child.once("exit", (code) => reject(new Error(`the /healthz prober exited (${code}) before it reported`)));
  });
  // A prober that dies mid-run is reported by stop(); until then the rejection has no reader.
  summary.catch(() => undefined);
  await new Promise<void>((ready, reject) => {
    child.once("message", () => ready());
    child.once("error", reject);
  });
  return {
    stop() {
      child.send("stop");
      return summary;
    },
  };
}
