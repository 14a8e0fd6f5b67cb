import { formatCount } from "../../util/format";
import type { ChartSpec } from "./chart-spec";
import { shouldAnimate } from "./chart-spec";

export interface ChartLayout {
  /** Below the `sm` breakpoint: the legend scrolls on one line and the plot takes the whole width. */
  compact: boolean;
}

/** A design token's colour in the current theme (palette.ts resolveToken); undefined leaves ECharts' choice. */
export type TokenColor = (token: string) => string | undefined;

const noTokens: TokenColor = () => undefined;

/** The widest character of a value label (digits and separators in ECharts' 12 px sans-serif), with a margin. */
const VALUE_LABEL_CHAR_PX = 7;

/** Legend entries drawn smaller than ECharts' default: the eight indicator types fit on one line in a third of a 1440 px page. */
const LEGEND_ITEMS = { itemWidth: 14, itemHeight: 10, itemGap: 8 } as const;

/** A legend that does not fit on one line scrolls on it: wrapped, its second line ran into the plot, whose top is placed for one. */
const ONE_LINE_LEGEND = { ...LEGEND_ITEMS, type: "scroll" } as const;

/** The axis labels drawn inside the grid's margins: ECharts 6's form of `containLabel`, which needs a legacy module. */
const LABELS_INSIDE = { outerBoundsMode: "same", outerBoundsContain: "axisLabel" } as const;

function itemStyle(color: string | undefined) {
  return color ? { color } : undefined;
}

/** Translates our chart spec into an ECharts option object. */
export function toEChartsOption(spec: ChartSpec, textColor: string, layout: ChartLayout = { compact: false }, tokenColor: TokenColor = noTokens) {
  const animation = shouldAnimate(spec);
  const { compact } = layout;
  const legend = (entries: typeof LEGEND_ITEMS | typeof ONE_LINE_LEGEND) => ({ top: 0, textStyle: { color: textColor }, ...entries });
  const common = {
    animation,
    textStyle: { color: textColor },
    tooltip: { trigger: spec.kind === "pie" ? "item" : "axis" },
    legend: legend(ONE_LINE_LEGEND),
  };
  if (spec.kind === "pie") {
    const [series] = spec.series;
    return {
      ...common,
      // A pie's legend is the only key to its slices: on a wide page it wraps, and the pie sits below it.
      legend: legend(compact ? ONE_LINE_LEGEND : LEGEND_ITEMS),
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
    // Each bar is labelled with its value, so the value axis draws nothing, and the right margin fits the longest label.
    const longestValue = Math.max(0, ...spec.series.flatMap((series) => series.data.map((value) => formatCount(value).length)));
    return {
      ...common,
      legend: { show: false },
      grid: { left: 4, right: 8 + longestValue * VALUE_LABEL_CHAR_PX, top: 8, bottom: 8, ...LABELS_INSIDE },
      yAxis: {
        type: "category",
        inverse: true,
        data: spec.categories,
        axisLabel: { color: textColor, interval: 0, width: compact ? 110 : 150, overflow: "truncate" },
      },
      xAxis: { type: "value", axisLabel: { show: false }, splitLine: { show: false } },
      series: spec.series.map((series) => ({
        name: series.name,
        type: "bar",
        data: series.data,
        label: { show: true, position: "right", color: textColor, formatter: ({ value }: { value: unknown }) => formatCount(Number(value)) },
        itemStyle: itemStyle(series.token ? tokenColor(series.token) : undefined),
      })),
    };
  }
  return {
    ...common,
    // The right margin holds half a date: the last day's label is centred under its bar, past the plot's end.
    grid: compact ? { left: 4, right: 4, top: 36, bottom: 8, ...LABELS_INSIDE } : { left: 48, right: 36, top: 36, bottom: 32, ...LABELS_INSIDE },
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
