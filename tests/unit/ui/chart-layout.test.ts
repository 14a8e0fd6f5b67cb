import { BarChart, PieChart } from "echarts/charts";
import { GridComponent, LegendComponent, TooltipComponent } from "echarts/components";
import * as echarts from "echarts/core";
import { SVGRenderer } from "echarts/renderers";
import { describe, expect, it } from "vitest";
import type { ChartSpec } from "../../../shared/ui/charts/chart-spec";
import { toEChartsOption } from "../../../shared/ui/charts/echarts-option";

/**
 * The charts' options laid out by ECharts itself, as SVG rendered on the
 * server (no browser), at the widths the pages give them: what is drawn
 * where, rather than which options are set.
 */
echarts.use([BarChart, PieChart, GridComponent, LegendComponent, TooltipComponent, SVGRenderer]);

/** ECharts' 12 px sans-serif: no digit, letter of a date or separator is wider. */
const CHAR_PX = 7;

interface DrawnText {
  text: string;
  x: number;
  y: number;
  anchor: string;
}

function draw(spec: ChartSpec, width: number, height = 280): DrawnText[] {
  const chart = echarts.init(null, null, { renderer: "svg", ssr: true, width, height });
  try {
    chart.setOption({ ...toEChartsOption(spec, "#000"), animation: false });
    const svg = chart.renderToSVGString();
    return [...svg.matchAll(/<text([^>]*)>([^<]*)<\/text>/g)].map(([, attributes, text]) => {
      const [, x, y] = /translate\(([\d.-]+) ([\d.-]+)\)/.exec(attributes!) ?? [];
      return { text: text!, x: Number(x), y: Number(y), anchor: /text-anchor="(\w+)"/.exec(attributes!)?.[1] ?? "start" };
    });
  } finally {
    chart.dispose();
  }
}

const TYPES = ["ipv4", "ipv6", "cidr", "domain", "url", "md5", "sha1", "sha256"];
const days = Array.from({ length: 90 }, (_, i) => new Date(Date.UTC(2026, 4, 25 + i)).toISOString().slice(0, 10));
const perDayByType: ChartSpec = {
  kind: "stacked-bar",
  categoryLabel: "Day",
  categories: days,
  series: TYPES.map((name, i) => ({ name, data: days.map((_, day) => (day * 7 + i * 13) % 1800) })),
};

describe("chart layout", () => {
  // The IOC radar's per-day chart is 443–526 px wide from 1024 to 1920 px pages.
  for (const width of [443, 508, 526]) {
    it(`at ${width} px, draws the eight indicator types' legend on one line above the plot, with no page to scroll to`, () => {
      const texts = draw(perDayByType, width);
      const legend = texts.filter((text) => TYPES.includes(text.text));
      expect(legend.map((text) => text.text)).toEqual(TYPES);
      expect(new Set(legend.map((text) => text.y)).size).toBe(1);
      expect(texts.some((text) => /^\d+\/\d+$/.test(text.text))).toBe(false);
      const topTick = Math.min(...texts.filter((text) => /^[\d,]+$/.test(text.text)).map((text) => text.y));
      expect(legend[0]!.y + 12).toBeLessThan(topTick);
    });

    it(`at ${width} px, keeps every day's label inside the chart`, () => {
      const labels = draw(perDayByType, width).filter((text) => /^\d{4}-\d{2}-\d{2}$/.test(text.text));
      expect(labels.length).toBeGreaterThan(2);
      for (const label of labels) {
        expect(label.anchor).toBe("middle");
        expect(label.x + (label.text.length * CHAR_PX) / 2, label.text).toBeLessThanOrEqual(width);
      }
    });
  }

  it("keeps a ranked bar's value label, separated by thousands, inside a 250 px column", () => {
    const spec: ChartSpec = {
      kind: "hbar",
      categoryLabel: "Family",
      categories: ["interlock-1", "interlock", "android_fakeapp"],
      series: [{ name: "Indicators", data: [101687, 86876, 49682] }],
    };
    const values = draw(spec, 250).filter((text) => /^[\d,]+$/.test(text.text));
    expect(values.map((text) => text.text)).toEqual(["101,687", "86,876", "49,682"]);
    for (const value of values) expect(value.x + value.text.length * CHAR_PX, value.text).toBeLessThanOrEqual(250);
  });
});
