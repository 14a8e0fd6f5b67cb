import { CHART_ANIMATION_MAX_POINTS } from "../../constants";
import { csvRow } from "../../util/csv";

/**
 * What a page asks the chart component to draw: categories along one axis and
 * one or more named series. Kept this small on purpose so the same data can
 * be drawn, exported as CSV and described to a screen reader.
 */
export interface ChartSpec {
  /** "hbar": categories down the side, so every label (a vendor name) gets a line of its own. */
  kind: "line" | "bar" | "hbar" | "stacked-bar" | "pie";
  categories: string[];
  /** `token`: the design token (CSS custom property, shared/ui/charts/palette.ts) the series is drawn in. */
  series: Array<{ name: string; data: number[]; token?: string }>;
  /** Pie slices: one token per category, in order. */
  categoryTokens?: string[];
  /** Label of the category axis, used as the CSV's first column. */
  categoryLabel: string;
}

export function pointCount(spec: ChartSpec): number {
  return spec.series.reduce((total, series) => total + series.data.length, 0);
}

/** Animations cost more than they help once a chart holds many points. */
export function shouldAnimate(spec: ChartSpec): boolean {
  return pointCount(spec) <= CHART_ANIMATION_MAX_POINTS;
}

export function chartToCsv(spec: ChartSpec): string {
  const header = [spec.categoryLabel, ...spec.series.map((series) => series.name)];
  const rows = spec.categories.map((category, index) => [category, ...spec.series.map((series) => series.data[index] ?? 0)]);
  return [header, ...rows].map(csvRow).join("");
}

export function chartFileName(title: string, extension: "png" | "csv"): string {
  const slug =
    title
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-|-$/g, "") || "chart";
  return `${slug}.${extension}`;
}
