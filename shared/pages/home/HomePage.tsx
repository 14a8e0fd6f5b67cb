import { Link } from "react-router";
import { usePageData } from "../../routes/page-data";
import { Chart } from "../../ui/charts/Chart";
import { SeverityBadge } from "../../ui/cve/SeverityBadge";
import { severityToken, typeToken } from "../../ui/charts/palette";
import { formatCount, formatDay } from "../../util/format";
import type { homePage } from "./page";
import { SourceFreshness } from "./SourceFreshness";

export function meta() {
  return {
    title: "Home",
    description: "Which vulnerabilities matter now and which indicators of compromise are active, from the publishers' own feeds.",
  };
}

/** A figure whose feed has not been imported shows that, not a zero that reads like a fact. */
function Figure({ label, value, imported, note }: { label: string; value: number; imported: boolean; note?: string }) {
  return (
    <div className="figure">
      <dt>{label}</dt>
      <dd>
        {imported ? <strong>{formatCount(value)}</strong> : <span className="muted">not imported yet</span>}
        {imported && note ? <span className="muted small"> {note}</span> : null}
      </dd>
    </div>
  );
}

function NotImportedNotice({ missing }: { missing: string[] }) {
  return (
    <div className="notice" role="status">
      <h2>Some feeds have not been imported yet</h2>
      <p>
        No data yet from: {missing.join(", ")}. Their figures and lists appear once the first import finishes; the server imports on its schedule, and operators
        can run <code>npm run sync</code> to import now. The status of every feed is below.
      </p>
    </div>
  );
}

export function Component() {
  const data = usePageData<typeof homePage>();
  const { figures } = data;
  const has = { cves: figures.cvesTracked > 0, kev: figures.kevEntries > 0, iocs: figures.indicatorsTracked > 0 };
  const empty = !has.cves && !has.kev && !has.iocs;
  const missing = [...(has.cves ? [] : ["CVE records"]), ...(has.kev ? [] : ["CISA KEV"]), ...(has.iocs ? [] : ["indicator feeds"])];
  return (
    <section className="home">
      <header className="page-header">
        <h1>Threat Radar</h1>
        <p className="lead">
          The <Link to="/cve-radar">CVE radar</Link> ranks vulnerabilities by the evidence that they matter now; the <Link to="/ioc-radar">IOC radar</Link>{" "}
          tells whether an indicator is known, since when and to whom.
        </p>
      </header>

      {empty ? (
        <div className="notice" role="status">
          <h2>No data has been imported yet</h2>
          <p>
            The server imports the feeds on its schedule, starting a few moments after its first start; a full first import takes a few minutes. Operators can
            run <code>npm run sync</code> to import now. The status of every feed is below.
          </p>
        </div>
      ) : (
        <>
          {missing.length > 0 ? <NotImportedNotice missing={missing} /> : null}
          <dl className="figures">
            <Figure
              label="CVEs tracked"
              value={figures.cvesTracked}
              imported={has.cves}
              note={figures.newestPublished ? `newest ${formatDay(figures.newestPublished)}` : undefined}
            />
            <Figure label="Published in the last 24 h" value={figures.published24h} imported={has.cves} />
            <Figure label="Published in the last 7 days" value={figures.published7d} imported={has.cves} />
            <Figure label="CISA KEV entries" value={figures.kevEntries} imported={has.kev} note={`${formatCount(figures.kevAdded30d)} added in 30 days`} />
            <Figure
              label="Indicators seen in the last 24 h"
              value={figures.indicatorsSeen24h}
              imported={has.iocs}
              note={`of ${formatCount(figures.indicatorsTracked)} tracked`}
            />
          </dl>

          <div className="home-grid">
            <section className="card" aria-labelledby="top-cves">
              <h2 id="top-cves">Top of the CVE radar</h2>
              {has.cves ? null : <p className="muted">No CVE feed has been imported yet.</p>}
              <ol className="rank-list">
                {data.topCves.map((cve) => (
                  <li key={cve.id}>
                    <div className="rank-list__row">
                      <span className="rank-list__item">
                        <Link to={`/cve-radar/${cve.id}`} className="mono">
                          {cve.id}
                        </Link>{" "}
                        {cve.cvss ? <SeverityBadge severity={cve.cvss.severity} score={cve.cvss.score} /> : null}{" "}
                        <span className="muted">
                          {cve.vendor ?? ""} {cve.product ?? ""}
                        </span>
                      </span>{" "}
                      <strong className="rank-list__score">{cve.priority.toFixed(1)}</strong>
                    </div>
                  </li>
                ))}
              </ol>
              <Link to="/cve-radar">The whole CVE radar</Link>
            </section>

            <section className="card" aria-labelledby="newest-kev">
              <h2 id="newest-kev">Newest CISA KEV additions</h2>
              {has.kev ? null : <p className="muted">The CISA KEV catalogue has not been imported yet.</p>}
              <ul className="rank-list">
                {data.newestKev.map((kev) => (
                  <li key={kev.id}>
                    <Link to={`/cve-radar/${kev.id}`} className="mono">
                      {kev.id}
                    </Link>{" "}
                    <span>
                      {kev.vendor} {kev.product}
                    </span>{" "}
                    <span className="muted small">
                      added {formatDay(kev.dateAdded)}, due {formatDay(kev.dueDate)}
                    </span>
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
                        {ioc.display}
                      </Link>{" "}
                      <span className="muted small">
                        {ioc.type}
                        {ioc.malwareFamily ? ` · ${ioc.malwareFamily}` : ""} · {formatDay(ioc.seenAt)}
                      </span>
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
                    token: severityToken(severity),
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
                  series: Object.entries(data.indicatorChart.byType).map(([type, values]) => ({ name: type, data: values, token: typeToken(type) })),
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
