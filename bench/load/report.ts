/** Figures and Markdown tables for `npm run bench:load`: its output pastes straight into docs/performance.md. */

/** Nearest-rank percentile of unsorted values; 0 when there are none. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

export const ms = (value: number) => (value >= 100 ? Math.round(value).toLocaleString("en-US") : value.toFixed(1));
export const count = (value: number) => Math.round(value).toLocaleString("en-US");

export function markdownTable(rows: ReadonlyArray<Record<string, string | number>>): string {
  if (rows.length === 0) return "(none)";
  const columns = Object.keys(rows[0]!);
  const line = (cells: ReadonlyArray<string | number>) => `| ${cells.join(" | ")} |`;
  return [line(columns), line(columns.map(() => "---")), ...rows.map((row) => line(columns.map((column) => row[column] ?? "")))].join("\n");
}

export function section(title: string, body: string): void {
  console.log(`\n### ${title}\n\n${body}`);
}

export interface Target {
  name: string;
  goal: string;
  measured: string;
  met: boolean;
}

export function targetTable(targets: readonly Target[]): string {
  return markdownTable(targets.map((t) => ({ target: t.name, goal: t.goal, measured: t.measured, "": t.met ? "met" : "**not met**" })));
}

const PINO_LEVELS: Readonly<Record<number, string>> = { 10: "trace", 20: "debug", 30: "info", 40: "warn", 50: "error", 60: "fatal" };
const cell = (text: string) => text.replace(/[|`\n]/g, " ").slice(0, 160);

/** What a server logged (pino JSON lines, and anything else on its stdout and stderr), grouped by level, message and error message, most frequent first. */
export function logSummary(output: string): string {
  const counts = new Map<string, number>();
  let lines = 0;
  for (const line of output.split("\n")) {
    // A stack printed outside the JSON log counts once, by its first line.
    if (line.trim() === "" || /^\s+at /.test(line)) continue;
    lines += 1;
    let key: string;
    try {
      const entry = JSON.parse(line) as { level?: number; msg?: string; err?: { message?: string } };
      key = `${PINO_LEVELS[entry.level ?? 0] ?? String(entry.level)} ${entry.msg ?? ""}${entry.err?.message ? `: ${entry.err.message}` : ""}`;
    } catch {
      key = `(not JSON) ${line}`;
    }
    key = cell(key);
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  if (lines === 0) return "The server logged nothing.";
  const top = [...counts].sort((a, b) => b[1] - a[1]).slice(0, 8);
  return `The server logged ${count(lines)} lines; the most frequent:\n\n${markdownTable(top.map(([message, n]) => ({ lines: count(n), message: `\`${message}\`` })))}`;
}
