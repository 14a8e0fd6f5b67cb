import { Link } from "react-router";
import { iocListSearch } from "../../ioc-radar/list-vocabulary";
import { usePageData } from "../../routes/page-data";
import type { SourceStatus } from "../../types/source-status";
import { DataDate } from "../../ui/common/DataDate";
import { sourceVerdict, staleOrFailing } from "../../ui/common/source-verdict";
import { Chart } from "../../ui/charts/Chart";
import { Pagination, PastTheEnd } from "../../ui/common/Pagination";
import { ProblemList } from "../../ui/common/ProblemList";
import { formatCount, formatDay } from "../../util/format";
import { BulkLookup } from "./BulkLookup";
import { IocFilters } from "./IocFilters";
import { IocTable } from "./IocTable";
import { perDaySpec, topMalwareSpec, typeSpec } from "./ioc-charts";
import type { iocListPage } from "./page";
import { ScoreExplainer } from "./ScoreExplainer";

export function meta() {
  return {
    title: "IOC radar",
    description: "Indicators of compromise seen by the public feeds, newest first, with sources, malware families, scores and benign-list flags.",
  };
}

/** Each feed's freshness, folded; a stale or failing feed is named where it cannot be missed. */
function Freshness({ sources }: { sources: SourceStatus[] }) {
  if (sources.length === 0) return <p className="muted">No indicator feed has been imported yet.</p>;
  const problems = staleOrFailing(sources);
  return (
    <>
      {problems.length > 0 ? (
        <p className="notice notice--warning" role="alert">
          Stale or failing: {problems.map((source) => `${source.name} (${sourceVerdict(source).label})`).join(", ")}. Indicators from{" "}
          {problems.length === 1 ? "it" : "them"} may be out of date.
        </p>
      ) : null}
      <details className="freshness">
        <summary>Data freshness of {sources.length} feeds</summary>
        <ul className="plain-list" data-testid="freshness">
          {sources.map((source) => {
            const { label, tone } = sourceVerdict(source);
            return (
              <li key={source.name}>
                <strong>{source.name}</strong> <span className={`pill pill--${tone}`}>{label}</span>: last successful import{" "}
                {source.lastSuccessAt ? formatDay(source.lastSuccessAt) : "never"}
                {", "}
                <DataDate source={source} fallback="no dated records" />
                {source.records !== null ? ` (${formatCount(source.records)} records)` : ""}
                {source.lastError ? <span className="muted small break"> · {source.lastError}</span> : null}
              </li>
            );
          })}
        </ul>
      </details>
    </>
  );
}

export function Component() {
  const { params, problems, list, stats, freshness, facets, lookupText } = usePageData<typeof iocListPage>();
  const search = iocListSearch({ ...params, page: undefined });
  const pageHref = (page: number) => `/ioc-radar${iocListSearch({ ...params, page })}`;
  const filterSearch = iocListSearch({ ...params, type: undefined, page: undefined, per_page: undefined, sort: undefined, dir: undefined });
  const blocklistTypes = stats.types.filter((row) => row.count > 0 && (!params.type || params.type.includes(row.type)));
  return (
    <section className="ioc-list">
      <header className="page-header">
        <h1>IOC radar</h1>
        <p className="lead">
          Indicators of compromise from the public feeds, newest first, each with its <a href="#ioc-score">score</a> and a warning when a value is on a
          known-benign list.
        </p>
        <Freshness sources={freshness} />
      </header>
      <BulkLookup key={lookupText ?? ""} initialText={lookupText} />
      <IocFilters key={search} params={params} facets={facets} />
      <ProblemList problems={problems} />
      {list.total > 0 ? (
        <div className="chart-grid">
          <Chart title="Indicators per day (last seen) by type" spec={perDaySpec(stats)} />
          <Chart title="Top malware families" spec={topMalwareSpec(stats)} />
          <Chart title="Type distribution" spec={typeSpec(stats)} />
        </div>
      ) : null}
      <div className="results-bar">
        <p aria-live="polite">
          <strong>{formatCount(list.total)}</strong> indicator{list.total === 1 ? "" : "s"} match.
        </p>
        <p className="exports">
          Export:{" "}
          <a href={`/api/v1/iocs/export.csv${search}`} download>
            CSV
          </a>{" "}
          ·{" "}
          <a href={`/api/v1/iocs/export.json${search}`} download>
            JSON
          </a>{" "}
          ·{" "}
          <a href={`/api/v1/iocs/export.stix.json${search}`} download>
            STIX 2.1
          </a>{" "}
          · <a href={`/api/v1/iocs/feed.atom${search}`}>Atom feed</a>
          {blocklistTypes.length > 0 ? " · Blocklists: " : null}
          {blocklistTypes.map((row, index) => (
            <span key={row.type}>
              {index > 0 ? ", " : null}
              <a href={`/api/v1/iocs/blocklist.txt?${new URLSearchParams([["type", row.type], ...new URLSearchParams(filterSearch)])}`}>{row.type}</a>
            </span>
          ))}
        </p>
      </div>
      {list.total === 0 ? (
        <div className="empty-state">
          <p>No indicator matches these filters.</p>
          <p>
            <Link to="/ioc-radar">Clear all filters</Link>
          </p>
        </div>
      ) : list.page > list.pageCount ? (
        <PastTheEnd page={list.page} pageCount={list.pageCount} hrefFor={pageHref} />
      ) : (
        <>
          <IocTable rows={list.rows} params={params} />
          <Pagination page={list.page} pageCount={list.pageCount} total={list.total} hrefFor={pageHref} />
        </>
      )}
      <ScoreExplainer />
    </section>
  );
}
