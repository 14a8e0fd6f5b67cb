import type { ChartSpec } from "./chart-spec";
import { shouldAnimate } from "./chart-spec";

/** Translates our chart spec into an ECharts option object. */
export function toEChartsOption(spec: ChartSpec, textColor: string) {
  const animation = shouldAnimate(spec);
  const common = {
    animation,
    textStyle: { color: textColor },
    tooltip: { trigger: spec.kind === "pie" ? "item" : "axis" },
    legend: { top: 0, textStyle: { color: textColor } },
  };
  if (spec.kind === "pie") {
    const [series] = spec.series;
    return {
      ...common,
      series: [
        {
          type: "pie",
          radius: ["40%", "70%"],
          top: 24,
          data: spec.categories.map((name, index) => ({ name, value: series?.data[index] ?? 0 })),
        },
      ],
    };
  }
  return {
    ...common,
    grid: { left: 48, right: 16, top: 36, bottom: 32, containLabel: true },
    xAxis: { type: "category", data: spec.categories, axisLabel: { color: textColor } },
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
