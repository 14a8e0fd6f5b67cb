import { lazy, Suspense, useRef } from "react";
import type { ChartSpec } from "./chart-spec";
import { useVisibleWhenIdle } from "./use-visible-when-idle";

const EChart = lazy(() => import("./EChart"));

export interface ChartProps {
  title: string;
  spec: ChartSpec;
  /** A line under the chart for what it leaves out on purpose (e.g. CVEs that name no vendor). */
  note?: string;
}

/**
 * The one chart component of the site. ECharts is loaded only in the browser,
 * only by pages that draw a chart, and only once the chart is near the
 * viewport and the page is idle; the server renders the chart's data as a
 * table that screen readers (and people without JavaScript) can read.
 */
export function Chart({ title, spec, note }: ChartProps) {
  const figure = useRef<HTMLElement>(null);
  const visible = useVisibleWhenIdle(figure);
  return (
    <figure ref={figure} className="chart" data-testid="chart">
      <figcaption className="chart__title">{title}</figcaption>
      {visible ? (
        <Suspense fallback={<div className="chart__canvas" aria-hidden="true" />}>
          <EChart title={title} spec={spec} />
        </Suspense>
      ) : (
        <div className="chart__canvas" aria-hidden="true" />
      )}
      {note ? <p className="chart__note">{note}</p> : null}
      <ChartDataTable title={title} spec={spec} />
    </figure>
  );
}

function ChartDataTable({ title, spec }: Pick<ChartProps, "title" | "spec">) {
  return (
    // In a visually hidden box: a table itself grows to its rows whatever its height says.
    <div className="visually-hidden">
      <table>
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
    </div>
  );
}
