import { BarChart, LineChart, PieChart } from "echarts/charts";
import { GridComponent, LegendComponent, TooltipComponent } from "echarts/components";
import * as echarts from "echarts/core";
import { CanvasRenderer } from "echarts/renderers";
import { useEffect, useRef } from "react";
import { CHART_RESIZE_DEBOUNCE_MS } from "../../constants";
import { useMinWidth } from "../layout/breakpoints";
import { useEffectiveTheme } from "../layout/theme";
import { debounce } from "../../util/debounce";
import { chartFileName, chartToCsv, type ChartSpec } from "./chart-spec";
import { toEChartsOption } from "./echarts-option";
import { resolveToken } from "./palette";

// Only what the site draws, so the chart chunk stays small.
echarts.use([BarChart, LineChart, PieChart, GridComponent, LegendComponent, TooltipComponent, CanvasRenderer]);

function download(href: string, fileName: string): void {
  const link = document.createElement("a");
  link.href = href;
  link.download = fileName;
  link.rel = "noopener";
  document.body.append(link);
  link.click();
  link.remove();
}

export default function EChart({ title, spec }: { title: string; spec: ChartSpec }) {
  const element = useRef<HTMLDivElement>(null);
  const chart = useRef<echarts.ECharts | null>(null);
  // Narrower than the `sm` breakpoint, the same media query as the stylesheet's small-screen rules.
  const compact = !useMinWidth("sm");
  // Text colours come from the page's theme: redraw when it changes.
  const theme = useEffectiveTheme();

  useEffect(() => {
    const container = element.current;
    if (!container) return;
    const instance = echarts.init(container, null, { renderer: "canvas" });
    chart.current = instance;
    const resize = debounce(() => instance.resize(), CHART_RESIZE_DEBOUNCE_MS);
    const observer = new ResizeObserver(resize);
    observer.observe(container);
    return () => {
      resize.cancel();
      observer.disconnect();
      instance.dispose();
      chart.current = null;
    };
  }, []);

  useEffect(() => {
    // Colours are read from the design tokens now, so a theme switch redraws in the other theme's palette.
    const textColor = getComputedStyle(document.body).color;
    chart.current?.setOption(toEChartsOption(spec, textColor, { compact }, resolveToken), { notMerge: true });
  }, [spec, compact, theme]);

  const exportPng = () => {
    const instance = chart.current;
    if (!instance) return;
    const background = getComputedStyle(document.body).backgroundColor;
    download(instance.getDataURL({ type: "png", pixelRatio: 2, backgroundColor: background }), chartFileName(title, "png"));
  };
  const exportCsv = () => {
    const url = URL.createObjectURL(new Blob([chartToCsv(spec)], { type: "text/csv;charset=utf-8" }));
    download(url, chartFileName(title, "csv"));
    setTimeout(() => URL.revokeObjectURL(url), 0);
  };

  return (
    <>
      <div className="chart__actions">
        <button type="button" className="button" onClick={exportPng}>
          Export PNG
        </button>
        <button type="button" className="button" onClick={exportCsv}>
          Export CSV
        </button>
      </div>
      {/* Clips the drawing for the 150 ms between a narrowing and the redraw. */}
      <div ref={element} className="chart__canvas" role="img" aria-label={title} />
    </>
  );
}
