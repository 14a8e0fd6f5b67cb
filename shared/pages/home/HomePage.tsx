import { Link, useLoaderData } from "react-router";
import { defang } from "../../ioc/defang";
import type { IndicatorType } from "../../ioc/types";
import type { HomeData } from "../../types/home";
import { Chart } from "../../ui/charts/Chart";
import { SeverityBadge } from "../../ui/cve/SeverityBadge";
import { SEVERITY_COLORS } from "../../ui/cve/severity-colors";
import { formatCount, formatDay } from "../../util/format";
import { SourceFreshness } from "./SourceFreshness";

export function meta() {
  return {
    title: "Home",
    description: "Which vulnerabilities matter now and which indicators of compromise are active, from the publishers' own feeds.",
  };
}

function Figure({ label, value, note }: { label: string; value: number; note?: string }) {
  return (
    <div className="figure">
      <dt>{label}</dt>
      <dd>
        <strong>{formatCount(value)}</strong>
        {note ? <span className="muted small"> {note}</span> : null}
      </dd>
    </div>
  );
}

export function Component() {
  const data = useLoaderData() as HomeData;
  const { figures } = data;
  const empty = figures.cvesTracked === 0 && figures.indicatorsTracked === 0 && figures.kevEntries === 0;
  return (
    <section className="home">
      <header className="page-header">
        <h1>Threat Radar</h1>
        <p className="lead">
          The <Link to="/cve-radar">CVE radar</Link> ranks vulnerabilities by the evidence that they matter now; the{" "}
          <Link to="/ioc-radar">IOC radar</Link> tells whether an indicator is known, since when and to whom.
        </p>
      </header>

      {empty ? (
        <div className="notice" role="status">
          <h2>No data has been imported yet</h2>
          <p>
            The server imports the feeds on its schedule, starting a few moments after its first start; a full first
            import takes a few minutes. Operators can run <code>npm run sync</code> to import now. The status of every
            feed is below.
          </p>
        </div>
      ) : (
        <>
          <dl className="figures">
            <Figure label="CVEs tracked" value={figures.cvesTracked} note={figures.newestPublished ? `newest ${formatDay(figures.newestPublished)}` : undefined} />
            <Figure label="Published in the last 24 h" value={figures.published24h} />
            <Figure label="Published in the last 7 days" value={figures.published7d} />
            <Figure label="CISA KEV entries" value={figures.kevEntries} note={`${formatCount(figures.kevAdded30d)} added in 30 days`} />
            <Figure label="Indicators seen in the last 24 h" value={figures.indicatorsSeen24h} note={`of ${formatCount(figures.indicatorsTracked)} tracked`} />
          </dl>

          <div className="home-grid">
            <section className="card" aria-labelledby="top-cves">
              <h2 id="top-cves">Top of the CVE radar</h2>
              <ol className="rank-list">
                {data.topCves.map((cve) => (
                  <li key={cve.id}>
                    <Link to={`/cve-radar/${cve.id}`} className="mono">{cve.id}</Link>{" "}
                    {cve.cvss ? <SeverityBadge severity={cve.cvss.severity} score={cve.cvss.score} /> : null}{" "}
                    <span className="muted">{cve.vendor ?? ""} {cve.product ?? ""}</span>{" "}
                    <strong className="rank-list__score">{cve.priority.toFixed(1)}</strong>
                  </li>
                ))}
              </ol>
              <Link to="/cve-radar">The whole CVE radar</Link>
            </section>

            <section className="card" aria-labelledby="newest-kev">
              <h2 id="newest-kev">Newest CISA KEV additions</h2>
              <ul className="rank-list">
                {data.newestKev.map((kev) => (
                  <li key={kev.id}>
                    <Link to={`/cve-radar/${kev.id}`} className="mono">{kev.id}</Link> <span>{kev.vendor} {kev.product}</span>{" "}
                    <span className="muted small">added {formatDay(kev.dateAdded)}, due {formatDay(kev.dueDate)}</span>
                  </li>
                ))}
              </ul>
              <Link to="/cve-radar?kev=1&sort=kev_added">All KEV CVEs, newest first</Link>
            </section>

            <section className="card" aria-labelledby="newest-iocs">
              <h2 id="newest-iocs">Newest indicators</h2>
              {data.newestIndicators.length === 0 ? (
                <p className="muted">No indicator feed has been imported yet.</p>
              ) : (
                <ul className="rank-list">
                  {data.newestIndicators.map((ioc) => (
                    <li key={`${ioc.type}:${ioc.value}`}>
                      <Link to={`/ioc-radar/${encodeURIComponent(ioc.value)}`} className="mono break">
                        {defang({ type: ioc.type as IndicatorType, value: ioc.value })}
                      </Link>{" "}
                      <span className="muted small">{ioc.type}{ioc.malwareFamily ? ` · ${ioc.malwareFamily}` : ""} · {formatDay(ioc.seenAt)}</span>
                    </li>
                  ))}
                </ul>
              )}
              <Link to="/ioc-radar">The whole IOC radar</Link>
            </section>
          </div>

          <div className="chart-grid chart-grid--two">
            {data.cveChart.days.length > 0 ? (
              <Chart
                title="CVEs per day by severity (last 90 days of data)"
                spec={{
                  kind: "stacked-bar",
                  categoryLabel: "Day",
                  categories: data.cveChart.days,
                  series: Object.entries(data.cveChart.bySeverity).map(([severity, values]) => ({
                    name: severity.toLowerCase(),
                    data: values,
                    color: SEVERITY_COLORS[severity],
                  })),
                }}
              />
            ) : null}
            {data.indicatorChart.days.length > 0 ? (
              <Chart
                title="Indicators per day by type (last 90 days of data)"
                spec={{
                  kind: "stacked-bar",
                  categoryLabel: "Day",
                  categories: data.indicatorChart.days,
                  series: Object.entries(data.indicatorChart.byType).map(([type, values]) => ({ name: type, data: values })),
                }}
              />
            ) : null}
          </div>
        </>
      )}

      <SourceFreshness sources={data.sources} />
    </section>
  );
}
