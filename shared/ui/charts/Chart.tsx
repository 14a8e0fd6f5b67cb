import { lazy, Suspense, useEffect, useState } from "react";
import type { ChartSpec } from "./chart-spec";

const EChart = lazy(() => import("./EChart"));

export interface ChartProps {
  title: string;
  spec: ChartSpec;
}

/**
 * The one chart component of the site. ECharts is loaded only in the browser
 * and only by pages that draw a chart; the server renders the chart's data as
 * a table that screen readers (and people without JavaScript) can read.
 */
export function Chart({ title, spec }: ChartProps) {
  const [mounted, setMounted] = useState(false);
  useEffect(() => setMounted(true), []);
  return (
    // ECharts sizes its canvas in pixels; without min-width 0 that size would be the figure's minimum
    // in a grid, so a chart could grow with the window but never shrink (and would widen the page).
    <figure className="chart" data-testid="chart" style={{ minWidth: 0 }}>
      <figcaption className="chart__title">{title}</figcaption>
      {mounted ? (
        <Suspense fallback={<div className="chart__canvas" aria-hidden="true" />}>
          <EChart title={title} spec={spec} />
        </Suspense>
      ) : (
        <div className="chart__canvas" aria-hidden="true" />
      )}
      <ChartDataTable title={title} spec={spec} />
    </figure>
  );
}

function ChartDataTable({ title, spec }: ChartProps) {
  return (
    <table className="visually-hidden">
      <caption>{title}</caption>
      <thead>
        <tr>
          <th scope="col">{spec.categoryLabel}</th>
          {spec.series.map((series) => (
            <th scope="col" key={series.name}>
              {series.name}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {spec.categories.map((category, index) => (
          <tr key={category}>
            <th scope="row">{category}</th>
            {spec.series.map((series) => (
              <td key={series.name}>{series.data[index] ?? 0}</td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
