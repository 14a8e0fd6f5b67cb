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
