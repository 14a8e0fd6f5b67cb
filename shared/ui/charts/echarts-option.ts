import type { ChartSpec } from "./chart-spec";
import { shouldAnimate } from "./chart-spec";

export interface ChartLayout {
  /** Below the `sm` breakpoint: the legend scrolls on one line and the plot takes the whole width. */
  compact: boolean;
}

/** Translates our chart spec into an ECharts option object. */
export function toEChartsOption(spec: ChartSpec, textColor: string, layout: ChartLayout = { compact: false }) {
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
          data: spec.categories.map((name, index) => ({ name, value: series?.data[index] ?? 0 })),
        },
      ],
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
      itemStyle: series.color ? { color: series.color } : undefined,
    })),
  };
}
