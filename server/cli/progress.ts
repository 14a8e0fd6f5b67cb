import type { Writable } from "node:stream";
import cliProgress from "cli-progress";
import type { ImportOutcome, ImportProgress } from "../pipeline/run";

export interface ProgressDisplay {
  /** Where log lines go: above the bars on a terminal, straight to stderr otherwise. */
  logStream: { write(line: string): void } | Writable;
  progress(update: ImportProgress): void;
  done(outcome: ImportOutcome): void;
  note(line: string): void;
  stop(): void;
}

/** Without a terminal, one line per running source this often. */
const PLAIN_INTERVAL_MS = 10_000;

interface State {
  started: number;
  last: ImportProgress | null;
}

/** 0–1 of a source's import: records against the last run's count when known, else bytes read. */
function fraction(p: ImportProgress): number {
  if (p.expectedRecords) return Math.min(1, p.records / p.expectedRecords);
  return p.total > 0 ? Math.min(1, p.done / p.total) : 0;
}

function eta(p: ImportProgress, rate: number): string {
  if (!p.expectedRecords || rate <= 0 || p.phase !== "import") return "";
  const seconds = Math.max(0, (p.expectedRecords - p.records) / rate);
  return seconds < 90 ? `${Math.round(seconds)} s` : `${Math.round(seconds / 60)} min`;
}

function phaseLabel(phase: ImportProgress["phase"]): string {
  return phase === "download" ? "downloading" : phase === "merge" ? "merging" : "reading";
}

/**
 * The sync CLI's progress: bars with records, rate and ETA on a terminal;
 * one plain line per running source every 10 s otherwise (cron, CI, a
 * container's log), where bars would only be noise.
 */
export function createProgressDisplay(names: readonly string[]): ProgressDisplay {
  const width = Math.max(...names.map((n) => n.length), 6);
  const states = new Map<string, State>();
  const rateOf = (source: string, p: ImportProgress) => {
    const state = states.get(source)!;
    const seconds = (performance.now() - state.started) / 1000;
    return seconds > 0 ? p.records / seconds : 0;
  };

  if (!process.stderr.isTTY) {
    let lastLine = 0;
    return {
      logStream: process.stderr,
      progress(p) {
        if (!states.has(p.source)) states.set(p.source, { started: performance.now(), last: null });
        states.get(p.source)!.last = p;
        const t = performance.now();
        if (t - lastLine < PLAIN_INTERVAL_MS) return;
        lastLine = t;
        const rate = rateOf(p.source, p);
        const left = eta(p, rate);
        process.stderr.write(
          `${p.source}: ${phaseLabel(p.phase)}, ${p.records.toLocaleString("en-US")} records` +
            `${p.expectedRecords ? ` of about ${p.expectedRecords.toLocaleString("en-US")}` : ""}, ${Math.round(rate).toLocaleString("en-US")}/s${left ? `, ${left} left` : ""}\n`,
        );
      },
      done(outcome) {
        process.stderr.write(`${outcome.source}: ${outcome.status}${outcome.detail ? ` (${outcome.detail})` : ""}\n`);
      },
      note: (line) => process.stderr.write(`${line}\n`),
      stop() {},
    };
  }

  const bars = new cliProgress.MultiBar(
    { format: "{source} |{bar}| {percentage}% | {status}", hideCursor: true, clearOnComplete: false, stopOnComplete: false },
    cliProgress.Presets.shades_classic,
  );
  const byName = new Map(names.map((name) => [name, bars.create(1000, 0, { source: name.padEnd(width), status: "waiting" })]));
  return {
    logStream: { write: (line: string) => bars.log(line.endsWith("\n") ? line : `${line}\n`) },
    progress(p) {
      if (!states.has(p.source)) states.set(p.source, { started: performance.now(), last: null });
      const rate = rateOf(p.source, p);
      const left = eta(p, rate);
      byName.get(p.source)?.update(Math.round(fraction(p) * 1000), {
        source: p.source.padEnd(width),
        status: `${phaseLabel(p.phase)} | ${p.records.toLocaleString("en-US")} records | ${Math.round(rate).toLocaleString("en-US")}/s${left ? ` | ETA ${left}` : ""}`,
      });
    },
    done(outcome) {
      const bar = byName.get(outcome.source);
      const status =
        outcome.status === "skipped" ? `skipped: ${outcome.detail ?? ""}` : outcome.status === "failed" ? `failed: ${outcome.error ?? ""}` : outcome.status;
      bar?.update(outcome.status === "ok" || outcome.status === "not-modified" ? 1000 : bar.getProgress() * 1000, {
        source: outcome.source.padEnd(width),
        status,
      });
    },
    note: (line) => bars.log(`${line}\n`),
    stop: () => bars.stop(),
  };
}
