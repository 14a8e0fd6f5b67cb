import { Link, useLoaderData } from "react-router";
import type { HomeData } from "../../types/pages";

export function meta() {
  return {
    title: "Home",
    description: "Which vulnerabilities matter now and which indicators of compromise are active, from the publishers' own feeds.",
  };
}

export function Component() {
  const { sources } = useLoaderData() as HomeData;
  return (
    <section className="home">
      <h1>Threat Radar</h1>
      <p className="lead">
        The <Link to="/cve-radar">CVE radar</Link> ranks vulnerabilities by the evidence that they matter now; the{" "}
        <Link to="/ioc-radar">IOC radar</Link> tells whether an indicator is known, since when and to whom.
      </p>
      <h2>Data sources</h2>
      {sources.length === 0 ? (
        <p className="empty-state">No feed has been imported yet. Run <code>npm run sync</code> or wait for the scheduled import.</p>
      ) : (
        <table className="data-table">
          <thead>
            <tr>
              <th scope="col">Source</th>
              <th scope="col">Status</th>
              <th scope="col">Last successful import</th>
              <th scope="col">Newest record</th>
            </tr>
          </thead>
          <tbody>
            {sources.map((source) => (
              <tr key={source.name}>
                <td>{source.name}</td>
                <td>{source.lastError ? `${source.status}: ${source.lastError}` : source.status}</td>
                <td>{source.lastSuccessAt ?? "never"}</td>
                <td>{source.newestRecordAt ?? "unknown"}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
