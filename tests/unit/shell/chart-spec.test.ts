import { describe, expect, it } from "vitest";
import { chartFileName, chartToCsv, shouldAnimate, type ChartSpec } from "../../../shared/ui/charts/chart-spec";
import { toEChartsOption } from "../../../shared/ui/charts/echarts-option";
import { severityToken, typeToken } from "../../../shared/ui/charts/palette";
import { topVendorsSpec } from "../../../shared/pages/cve-list/cve-charts";

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
    expect(compact.legend.type).toBe("scroll");
    expect(compact.grid.left).toBeLessThan(wide.grid.left);
    expect(compact.xAxis.axisLabel.hideOverlap).toBe(true);
    const pie = toEChartsOption({ ...spec(3), kind: "pie" }, "#000", { compact: true }) as { legend: { type?: string } };
    expect(pie.legend.type).toBe("scroll");
  });

  it("keeps an axis chart's legend on the one line its plot leaves it, at every width; a wide pie's legend wraps above the pie", () => {
    type Option = { legend: { type?: string; top: number; itemWidth: number }; grid: { top: number } };
    for (const compact of [false, true]) {
      const option = toEChartsOption(spec(3), "#000", { compact }) as Option;
      expect(option.legend).toMatchObject({ type: "scroll", top: 0 });
      // ECharts' default legend icon is 25 px wide: smaller ones let the eight indicator types fit on one line.
      expect(option.legend.itemWidth).toBeLessThan(25);
      expect(option.grid.top).toBeGreaterThanOrEqual(30);
    }
    const pie = toEChartsOption({ ...spec(3), kind: "pie" }, "#000") as { legend: { type?: string } };
    expect(pie.legend.type).toBeUndefined();
  });

  it("leaves room right of the plot for the half of the last day's label that passes its bar", () => {
    const option = toEChartsOption(spec(3), "#000") as { grid: { right: number } };
    expect(option.grid.right).toBeGreaterThanOrEqual(("2024-01-03".length * 7) / 2);
  });

  it("draws series and pie slices in the design tokens' colours", () => {
    const tokenColor = (token: string) => `color-of(${token})`;
    const bars = toEChartsOption(
      { ...spec(3), series: [{ name: "critical", data: [1, 2, 3], token: severityToken("CRITICAL") }] },
      "#000",
      undefined,
      tokenColor,
    ) as {
      series: Array<{ itemStyle?: { color: string } }>;
    };
    expect(bars.series[0]!.itemStyle).toEqual({ color: "color-of(--sev-critical)" });
    const pie = toEChartsOption(
      {
        kind: "pie",
        categoryLabel: "Type",
        categories: ["ip:port", "md5"],
        categoryTokens: ["ip:port", "md5"].map(typeToken),
        series: [{ name: "n", data: [2, 1] }],
      },
      "#000",
      undefined,
      tokenColor,
    ) as { series: Array<{ data: Array<{ itemStyle?: { color: string } }> }> };
    expect(pie.series[0]!.data.map((slice) => slice.itemStyle?.color)).toEqual(["color-of(--type-ip-port)", "color-of(--type-md5)"]);
  });

  it("ranks horizontal bars top-down with every category label shown", () => {
    type Option = { yAxis: { type: string; inverse: boolean; axisLabel: { interval: number; overflow: string } }; legend: { show: boolean } };
    const option = toEChartsOption(
      { kind: "hbar", categoryLabel: "Vendor", categories: ["a", "b"], series: [{ name: "CVEs", data: [2, 1] }] },
      "#000",
    ) as Option;
    expect(option.yAxis).toMatchObject({ type: "category", inverse: true, axisLabel: { interval: 0, overflow: "truncate" } });
    expect(option.legend.show).toBe(false);
  });

  it("labels each horizontal bar with its value, separated by thousands, in a right margin wide enough for the longest", () => {
    type Option = {
      grid: { right: number };
      xAxis: { axisLabel: { show: boolean }; splitLine: { show: boolean } };
      series: Array<{ label: { show: boolean; position: string; formatter: (params: { value: unknown }) => string } }>;
    };
    const option = toEChartsOption(
      { kind: "hbar", categoryLabel: "Family", categories: ["interlock-1", "meta"], series: [{ name: "Indicators", data: [101687, 31364] }] },
      "#000",
    ) as Option;
    const [series] = option.series;
    expect(series!.label).toMatchObject({ show: true, position: "right" });
    expect([101687, 31364].map((value) => series!.label.formatter({ value }))).toEqual(["101,687", "31,364"]);
    // ECharts' 12 px digits are under 7 px wide: "101,687" needs about 45 px beside its bar.
    expect(option.grid.right).toBeGreaterThanOrEqual("101,687".length * 7);
    // The labels say what the value axis would: it draws neither ticks' labels nor lines.
    expect(option.xAxis).toMatchObject({ axisLabel: { show: false }, splitLine: { show: false } });
  });

  it("keeps records that name no vendor out of the vendor ranking and counts them apart", () => {
    const { spec: vendors, unknownCount } = topVendorsSpec({
      perDay: { days: [], bySeverity: {} },
      severity: [],
      topVendors: [
        { vendor: "n/a", count: 50 },
        { vendor: "Microsoft", count: 40 },
        { vendor: "Unknown", count: 5 },
        { vendor: "Apple", count: 3 },
      ],
    });
    expect(vendors.categories).toEqual(["Microsoft", "Apple"]);
    expect(vendors.series[0]!.data).toEqual([40, 3]);
    expect(unknownCount).toBe(55);
  });
});
