import { describe, expect, it } from "vitest";
import { chartFileName, chartToCsv, shouldAnimate, type ChartSpec } from "../../../shared/ui/charts/chart-spec";
import { toEChartsOption } from "../../../shared/ui/charts/echarts-option";

const spec = (points: number): ChartSpec => ({
  kind: "stacked-bar",
  categoryLabel: "Day",
  categories: Array.from({ length: points }, (_, i) => `2024-01-${String(i + 1).padStart(2, "0")}`),
  series: [{ name: "critical", data: Array.from({ length: points }, (_, i) => i) }],
});

describe("chart spec", () => {
  it("animates up to 50 data points and not above", () => {
    expect(shouldAnimate(spec(50))).toBe(true);
    expect(shouldAnimate(spec(51))).toBe(false);
    expect(toEChartsOption(spec(51), "#000").animation).toBe(false);
  });

  it("exports CSV with a header row, quoting and formula-injection guard", () => {
    const csv = chartToCsv({
      kind: "bar",
      categoryLabel: "Vendor",
      categories: ["Acme, Inc.", "=cmd|' /C calc'!A0", 'Say "hi"'],
      series: [{ name: "CVEs", data: [3, 2, 1] }],
    });
    expect(csv).toBe('Vendor,CVEs\r\n"Acme, Inc.",3\r\n\'=cmd|\' /C calc\'!A0,2\r\n"Say ""hi""",1\r\n');
  });

  it("names files after the chart title", () => {
    expect(chartFileName("CVEs per day by severity", "png")).toBe("cves-per-day-by-severity.png");
  });

  it("stacks series for stacked bars", () => {
    const option = toEChartsOption(spec(3), "#000") as { series: Array<{ stack?: string; type: string }> };
    expect(option.series[0]).toMatchObject({ type: "bar", stack: "total" });
  });

  it("below the sm breakpoint, lays out compactly: a scrolling legend and the plot across the whole width", () => {
    type Option = { legend: { type?: string }; grid: { left: number; right: number }; xAxis: { axisLabel: { hideOverlap: boolean } } };
    const wide = toEChartsOption(spec(3), "#000") as Option;
    const compact = toEChartsOption(spec(3), "#000", { compact: true }) as Option;
    expect(wide.legend.type).toBeUndefined();
    expect(compact.legend.type).toBe("scroll");
    expect(compact.grid.left).toBeLessThan(wide.grid.left);
    expect(compact.xAxis.axisLabel.hideOverlap).toBe(true);
    const pie = toEChartsOption({ ...spec(3), kind: "pie" }, "#000", { compact: true }) as { legend: { type?: string } };
    expect(pie.legend.type).toBe("scroll");
  });
});
