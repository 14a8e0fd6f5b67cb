import type { IocChartStats } from "../../ioc-radar/list-types";
import type { ChartSpec } from "../../ui/charts/chart-spec";

export const TYPE_COLORS: Readonly<Record<string, string>> = {
  ipv4: "#2563eb",
  ipv6: "#0891b2",
  cidr: "#0d9488",
  "ip:port": "#4f46e5",
  domain: "#16a34a",
  url: "#ca8a04",
  email: "#db2777",
  md5: "#9333ea",
  sha1: "#c026d3",
  sha256: "#dc2626",
  sha512: "#ea580c",
};

export function perDaySpec(stats: IocChartStats): ChartSpec {
  return {
    kind: "stacked-bar",
    categoryLabel: "Day",
    categories: stats.perDay.days,
    series: Object.entries(stats.perDay.byType).map(([type, data]) => ({ name: type, data, color: TYPE_COLORS[type] })),
  };
}

export function typeSpec(stats: IocChartStats): ChartSpec {
  return {
    kind: "pie",
    categoryLabel: "Type",
    categories: stats.types.map((row) => row.type),
    series: [{ name: "Indicators", data: stats.types.map((row) => row.count) }],
  };
}

export function topMalwareSpec(stats: IocChartStats): ChartSpec {
  return {
    kind: "bar",
    categoryLabel: "Malware family",
    categories: stats.topMalware.map((row) => row.malware),
    series: [{ name: "Indicators", data: stats.topMalware.map((row) => row.count) }],
  };
}
