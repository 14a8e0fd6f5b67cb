import type { IocChartStats } from "../../ioc-radar/list-types";
import type { ChartSpec } from "../../ui/charts/chart-spec";
import { NEUTRAL_TOKEN, typeToken } from "../../ui/charts/palette";

export function perDaySpec(stats: IocChartStats): ChartSpec {
  return {
    kind: "stacked-bar",
    categoryLabel: "Day",
    categories: stats.perDay.days,
    series: Object.entries(stats.perDay.byType).map(([type, data]) => ({ name: type, data, token: typeToken(type) })),
  };
}

export function typeSpec(stats: IocChartStats): ChartSpec {
  return {
    kind: "pie",
    categoryLabel: "Type",
    categories: stats.types.map((row) => row.type),
    categoryTokens: stats.types.map((row) => typeToken(row.type)),
    series: [{ name: "Indicators", data: stats.types.map((row) => row.count) }],
  };
}

export function topMalwareSpec(stats: IocChartStats): ChartSpec {
  return {
    kind: "hbar",
    categoryLabel: "Malware family",
    categories: stats.topMalware.map((row) => row.malware),
    series: [{ name: "Indicators", data: stats.topMalware.map((row) => row.count), token: NEUTRAL_TOKEN }],
  };
}
