import type { ChartSpec } from "./chart-spec";
import { shouldAnimate } from "./chart-spec";

export interface ChartLayout {
  /** Below the `sm` breakpoint: the legend scrolls on one line and the plot takes the whole width. */
  compact: boolean;
}

/** A design token's colour in the current theme (palette.ts resolveToken); undefined leaves ECharts' choice. */
export type TokenColor = (token: string) => string | undefined;

const noTokens: TokenColor = () => undefined;

function itemStyle(color: string | undefined) {
  return color ? { color } : undefined;
}

/** Translates our chart spec into an ECharts option object. */
export function toEChartsOption(spec: ChartSpec, textColor: string, layout: ChartLayout = { compact: false }, tokenColor: TokenColor = noTokens) {
  const animation = shouldAnimate(spec);
  const { compact } = layout;
  const common = {
    animation,
    textStyle: { color: textColor },
    tooltip: { trigger: spec.kind === "pie" ? "item" : "axis" },
    legend: { top: 0, textStyle: { color: textColor }, ...(compact ? { type: "scroll" } : {}) },
  };
  if (spec.kind === "pie") {
    const [series] = spec.series;
    return {
      ...common,
      series: [
        {
          type: "pie",
          radius: compact ? ["30%", "60%"] : ["40%", "70%"],
          top: 24,
          // The legend names the slices: outside labels get cut off in a narrow column.
          label: { show: false },
          labelLine: { show: false },
          data: spec.categories.map((name, index) => {
            const token = spec.categoryTokens?.[index];
            return { name, value: series?.data[index] ?? 0, itemStyle: itemStyle(token ? tokenColor(token) : undefined) };
          }),
        },
      ],
    };
  }
  if (spec.kind === "hbar") {
    // Ranked lists: the first category on top, every label shown (truncated, the tooltip has the whole name).
    return {
      ...common,
      legend: { show: false },
      grid: { left: 4, right: compact ? 12 : 24, top: 8, bottom: 8, containLabel: true },
      yAxis: {
        type: "category",
        inverse: true,
        data: spec.categories,
        axisLabel: { color: textColor, interval: 0, width: compact ? 110 : 150, overflow: "truncate" },
      },
      xAxis: { type: "value", axisLabel: { color: textColor, hideOverlap: true } },
      series: spec.series.map((series) => ({
        name: series.name,
        type: "bar",
        data: series.data,
        label: { show: true, position: "right", color: textColor },
        itemStyle: itemStyle(series.token ? tokenColor(series.token) : undefined),
      })),
    };
  }
  return {
    ...common,
    grid: compact ? { left: 4, right: 4, top: 36, bottom: 8, containLabel: true } : { left: 48, right: 16, top: 36, bottom: 32, containLabel: true },
    xAxis: { type: "category", data: spec.categories, axisLabel: { color: textColor, hideOverlap: compact } },
    yAxis: { type: "value", axisLabel: { color: textColor } },
    series: spec.series.map((series) => ({
      name: series.name,
      type: spec.kind === "line" ? "line" : "bar",
      data: series.data,
      stack: spec.kind === "stacked-bar" ? "total" : undefined,
      showSymbol: spec.kind === "line" ? series.data.length <= 60 : undefined,
      itemStyle: itemStyle(series.token ? tokenColor(series.token) : undefined),
    })),
  };
}
