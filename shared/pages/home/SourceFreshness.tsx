import type { SourceStatus } from "../../types/source-status";
import { DataDate } from "../../ui/common/DataDate";
import { sourceVerdict, staleOrFailing } from "../../ui/common/source-verdict";
import { formatCount, formatDay } from "../../util/format";

/** Each feed's last successful import and what dates its data, with a visible warning when stale or failing. */
export function SourceFreshness({ sources }: { sources: SourceStatus[] }) {
  const problems = staleOrFailing(sources);
  return (
    <section className="card" aria-labelledby="freshness-heading">
      <h2 id="freshness-heading">Data freshness</h2>
      {problems.length > 0 ? (
        <p className="notice notice--warning" role="alert">
          {problems.length} source{problems.length === 1 ? " is" : "s are"} stale or failing: {problems.map((s) => s.title).join(", ")}. Figures that depend on
          them may be out of date.
        </p>
      ) : null}
      <div className="table-scroll">
        <table className="data-table data-table--cards">
          <thead>
            <tr>
              <th scope="col">Source</th>
              <th scope="col">State</th>
              <th scope="col">Last successful import</th>
              <th scope="col">Data as of</th>
              <th scope="col" className="numeric">
                Records
              </th>
            </tr>
          </thead>
          <tbody>
            {sources.map((source) => {
              const { label, tone } = sourceVerdict(source);
              return (
                <tr key={source.name}>
                  <td data-label="Source">{source.title}</td>
                  <td data-label="State">
                    <span className={`pill pill--${tone}`}>{label}</span>
                    {source.lastError ? <span className="muted small break"> {source.lastError}</span> : null}
                  </td>
                  <td data-label="Last successful import">{source.lastSuccessAt ? formatDay(source.lastSuccessAt) : "never"}</td>
                  <td data-label="Data as of">
                    <DataDate source={source} fallback="—" />
                  </td>
                  <td data-label="Records" className="numeric">
                    {source.records === null ? "—" : formatCount(source.records)}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </section>
  );
}
