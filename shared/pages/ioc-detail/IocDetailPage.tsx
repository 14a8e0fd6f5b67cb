import type { Params } from "react-router";
import { Link } from "react-router";
import type { IocDetailData, RelatedGroup } from "../../ioc-radar/detail-types";
import { usePageData } from "../../routes/page-data";
import { ExternalLink, indicatorHref, IndicatorValue, VerdictBadge } from "../../ui/ioc/CopyButton";
import { formatDay } from "../../util/format";
import type { iocDetailPage } from "./page";

export function meta(detail: IocDetailData | undefined, params: Params) {
  const display = detail?.display ?? params.ioc ?? "indicator";
  return {
    title: `${detail?.type ?? "Indicator"} ${display}`,
    description: `What the tracked feeds know about the indicator ${display}.`,
  };
}

const RELATION_LABELS: Record<RelatedGroup["relation"], string> = {
  malware: "Same malware family",
  host: "Same host",
  domain: "Same registered domain",
  slash24: "Same /24 network",
};

function ScoreSection({ detail }: { detail: IocDetailData }) {
  const { score } = detail;
  return (
    <section className="card" aria-labelledby="score-heading">
      <h2 id="score-heading">
        Score{" "}
        <span className="priority-score" data-testid="ioc-score">
          {score.score}
        </span>{" "}
        / 100
      </h2>
      <table className="data-table data-table--breakdown">
        <caption className="visually-hidden">Score breakdown</caption>
        <thead>
          <tr>
            <th scope="col">Factor</th>
            <th scope="col">Evidence</th>
            <th scope="col" className="numeric">
              Points
            </th>
          </tr>
        </thead>
        <tbody>
          {score.contributions.map((c) => (
            <tr key={c.source}>
              <th scope="row">Source {c.source}</th>
              <td>
                weight {c.weight} × reported confidence {c.reportedConfidence === null ? "none (counted as 75)" : c.reportedConfidence}
              </td>
              <td className="numeric">+{c.points}</td>
            </tr>
          ))}
          <tr>
            <th scope="row">Decay since last seen</th>
            <td>
              {score.daysSinceLastSeen === null ? "no dated sighting" : `${score.daysSinceLastSeen} days ago`} · keeps {Math.round(score.recencyFactor * 100)} %
            </td>
            <td className="numeric">−{score.decayPoints}</td>
          </tr>
          <tr>
            <th scope="row">Benign-list penalty</th>
            <td>{score.benignListed ? "on a known-benign list" : "not on any known-benign list"}</td>
            <td className="numeric">−{score.benignPenaltyPoints}</td>
          </tr>
        </tbody>
      </table>
      <p className="small">
        <Link to="/ioc-radar#ioc-score">How the score is computed</Link>
      </p>
    </section>
  );
}

function Sightings({ detail }: { detail: IocDetailData }) {
  return (
    <section className="card" aria-labelledby="sightings-heading">
      <h2 id="sightings-heading">Sightings by source ({detail.sightings.length})</h2>
      <div className="table-scroll">
        <table className="data-table data-table--cards data-table--words" data-testid="sightings">
          <thead>
            <tr>
              <th scope="col">Source</th>
              <th scope="col">First seen</th>
              <th scope="col">Last seen</th>
              <th scope="col">Threat type</th>
              <th scope="col">Malware</th>
              <th scope="col">Tags</th>
              <th scope="col">Confidence</th>
              <th scope="col">Reporter</th>
              <th scope="col">Reference</th>
            </tr>
          </thead>
          <tbody>
            {detail.sightings.map((s, index) => (
              <tr key={`${s.source}:${s.port ?? 0}:${index}`} data-source={s.source}>
                <td data-label="Source">
                  {s.source}
                  {s.port !== null ? <span className="muted"> (port {s.port})</span> : null}
                </td>
                <td data-label="First seen" className="nowrap">
                  {formatDay(s.firstSeen)}
                </td>
                <td data-label="Last seen">
                  <span className="nowrap">{formatDay(s.lastSeen)}</span>
                  {/* This instance's own times, apart from the publisher's. */}
                  <span className="muted small block">
                    listed here since <span className="nowrap">{formatDay(s.listedSince)}</span>
                    {s.delistedAt ? (
                      <>
                        , no longer listed since <span className="nowrap">{formatDay(s.delistedAt)}</span>
                      </>
                    ) : null}
                  </span>
                </td>
                <td data-label="Threat type">{s.threatType ?? "—"}</td>
                <td data-label="Malware">{s.malwareFamily ?? "—"}</td>
                <td data-label="Tags">{s.tags.length ? s.tags.join(", ") : "—"}</td>
                <td data-label="Confidence">{s.confidence ?? "—"}</td>
                <td data-label="Reporter">{s.reporter ?? "—"}</td>
                <td data-label="Reference" className="break">
                  {s.reference && /^https?:\/\//i.test(s.reference) ? <ExternalLink href={s.reference}>{s.reference}</ExternalLink> : (s.reference ?? "—")}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

function Warninglists({ detail }: { detail: IocDetailData }) {
  return (
    <section className={`card${detail.warninglists.length ? " card--alert" : ""}`} aria-labelledby="warninglists-heading">
      <h2 id="warninglists-heading">Known-benign lists</h2>
      {detail.warninglists.length === 0 ? (
        <p>Not on any MISP warninglist.</p>
      ) : (
        <ul className="plain-list" data-testid="warninglists">
          {detail.warninglists.map((hit) => (
            <li key={hit.list}>
              <strong>{hit.list}</strong> ({hit.type} match on <code className="break">{hit.entry}</code>)
              {hit.description ? <span className="muted"> — {hit.description}</span> : null}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

export function Component() {
  const detail = usePageData<typeof iocDetailPage>();
  const { summary } = detail;
  return (
    <article className="ioc-detail">
      <nav aria-label="Breadcrumb" className="breadcrumb">
        <Link to="/ioc-radar">IOC radar</Link> › <span aria-current="page">{detail.display}</span>
      </nav>
      <header className="page-header">
        <h1>
          <IndicatorValue display={detail.display} value={detail.value} />
        </h1>
        <p>
          <span className="badge">{detail.type}</span> <VerdictBadge verdict={detail.score.verdict} />
        </p>
      </header>

      {detail.warninglists.length > 0 ? (
        <div className="notice notice--warning" role="note">
          This value is on {detail.warninglists.length === 1 ? "a known-benign list" : "known-benign lists"} (
          {detail.warninglists.map((hit) => hit.list).join(", ")}): it is probably a legitimate service; blocking it may break things.
        </div>
      ) : null}

      {!detail.known ? (
        <div className="notice" role="note" data-testid="not-seen">
          <p>
            <strong>Not seen in any feed we track.</strong> No indicator feed imported here has reported this {detail.type}. That is not proof that it is
            harmless.
          </p>
        </div>
      ) : null}

      {summary ? (
        <dl className="facts">
          <dt>First seen</dt>
          <dd>{formatDay(summary.firstSeen)}</dd>
          <dt>Last seen</dt>
          <dd>{summary.lastSeen ? formatDay(summary.lastSeen) : "— (no feed dates it)"}</dd>
          <dt>Listed here since</dt>
          <dd>
            {formatDay(summary.listedSince)}
            {summary.stillListedAt ? <span className="muted"> · still listed at {formatDay(summary.stillListedAt)}</span> : null}
          </dd>
          <dt>Threat type</dt>
          <dd>{summary.threatType ?? "—"}</dd>
          <dt>Malware family</dt>
          <dd>{summary.malwareFamily ?? "—"}</dd>
          <dt>Tags</dt>
          <dd>{summary.tags.length ? summary.tags.join(", ") : "—"}</dd>
          <dt>Sources</dt>
          <dd>{summary.sources.join(", ")}</dd>
        </dl>
      ) : null}

      <div className="detail-grid">
        {detail.known ? <ScoreSection detail={detail} /> : null}
        <Warninglists detail={detail} />
        {detail.known ? (
          <section className="card" aria-labelledby="activity-heading">
            <h2 id="activity-heading">Activity</h2>
            <ul className="plain-list" data-testid="activity">
              {detail.activity.map((window) => (
                <li key={window.days}>
                  Last {window.days === 1 ? "24 hours" : `${window.days} days`}:{" "}
                  {window.sources.length ? `seen by ${window.sources.join(", ")}` : <span className="muted">not seen</span>}
                </li>
              ))}
            </ul>
          </section>
        ) : null}
        {detail.cves.length > 0 ? (
          <section className="card" aria-labelledby="cves-heading">
            <h2 id="cves-heading">CVEs</h2>
            <ul className="plain-list">
              {detail.cves.map((id) => (
                <li key={id}>
                  <Link to={`/cve-radar/${id}`}>{id}</Link>
                </li>
              ))}
            </ul>
          </section>
        ) : null}
      </div>

      {detail.known ? <Sightings detail={detail} /> : null}

      {detail.related.length > 0 ? (
        <section className="card" aria-labelledby="related-heading">
          <h2 id="related-heading">Related indicators</h2>
          {detail.related.map((group) => (
            <div key={group.relation} className="reference-group">
              <h3>
                {RELATION_LABELS[group.relation]}: <span className="mono">{group.key}</span>
              </h3>
              <ul>
                {group.indicators.map((item) => (
                  <li key={`${item.type} ${item.value}`}>
                    <Link to={indicatorHref(item.value)} className="mono break">
                      {item.display}
                    </Link>{" "}
                    <span className="muted">
                      {item.type}
                      {item.malwareFamily ? ` · ${item.malwareFamily}` : ""} · last seen {formatDay(item.lastSeen)}
                    </span>
                  </li>
                ))}
              </ul>
            </div>
          ))}
        </section>
      ) : null}
    </article>
  );
}
