import { useEffect, useState } from "react";
import { Link } from "react-router";
import { createHttpClient } from "../../http/http-client";
import { BULK_LOOKUP_ID, LOOKUP_MAX_BYTES, LOOKUP_MAX_INDICATORS, type LookupResponse } from "../../ioc-radar/lookup-types";
import { useBoot } from "../../ui/boot/boot-context";
import { useBotCheck } from "../../ui/boot/bot-check-context";
import { IndicatorValue, VerdictBadge } from "../../ui/ioc/CopyButton";
import { formatCount } from "../../util/format";

function errorMessage(error: unknown): string {
  const data = (error as { data?: { error?: { message?: unknown } } }).data;
  if (typeof data?.error?.message === "string") return data.error.message;
  return error instanceof Error ? error.message : "The lookup failed";
}

/**
 * Paste free text, get every indicator in it classified. Needs JavaScript (it
 * posts to the API, behind the bot check). Text handed over by the header
 * search is looked up as soon as the page is interactive.
 */
export function BulkLookup({ initialText }: { initialText: string | null }) {
  const { config } = useBoot();
  const executeBotCheck = useBotCheck();
  const [text, setText] = useState(initialText ?? "");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [result, setResult] = useState<LookupResponse | null>(null);

  async function lookUp() {
    setBusy(true);
    setError(null);
    try {
      const token = await executeBotCheck("bulk_lookup");
      const http = createHttpClient(config.apiBaseUrl);
      setResult(await http<LookupResponse>("api/v1/iocs/lookup", { method: "POST", body: { text, ...(token ? { token } : {}) } }));
    } catch (failure) {
      setResult(null);
      setError(errorMessage(failure));
    } finally {
      setBusy(false);
    }
  }

  // Once per handed-over text: the page re-mounts this component when the text changes.
  useEffect(() => {
    // eslint-disable-next-line react-hooks/set-state-in-effect -- the lookup is the effect's purpose: it fetches, then sets the result
    if (initialText) void lookUp();
    // eslint-disable-next-line react-hooks/exhaustive-deps -- on mount only, see above
  }, []);

  return (
    <section id={BULK_LOOKUP_ID} className="card bulk-lookup" aria-labelledby="bulk-lookup-heading">
      <h2 id="bulk-lookup-heading">Bulk lookup</h2>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void lookUp();
        }}
      >
        <label className="bulk-lookup__label">
          <span>
            Paste text with indicators, defanged or not (up to {formatCount(LOOKUP_MAX_INDICATORS)} indicators or {formatCount(LOOKUP_MAX_BYTES / 1_048_576)}{" "}
            MB)
          </span>
          <textarea name="text" rows={6} value={text} onChange={(event) => setText(event.target.value)} spellCheck={false} />
        </label>
        <button type="submit" className="button button--primary" disabled={busy || text.trim() === ""}>
          {busy ? "Looking up…" : "Look up"}
        </button>
      </form>
      {error ? (
        <p className="notice notice--warning" role="alert">
          {error}
        </p>
      ) : null}
      {result ? (
        <div className="bulk-lookup__result" aria-live="polite" data-testid="lookup-result">
          <p>
            <strong>{formatCount(result.count)}</strong> indicator{result.count === 1 ? "" : "s"} found: {formatCount(result.summary.byVerdict.known)} known,{" "}
            {formatCount(result.summary.byVerdict.unknown)} unknown, {formatCount(result.summary.byVerdict["benign-listed"])} benign-listed.
          </p>
          {result.count > 0 ? (
            <>
              <table className="data-table">
                <caption className="visually-hidden">Summary by type</caption>
                <thead>
                  <tr>
                    <th scope="col">Type</th>
                    <th scope="col" className="numeric">
                      Known
                    </th>
                    <th scope="col" className="numeric">
                      Unknown
                    </th>
                    <th scope="col" className="numeric">
                      Benign-listed
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {Object.entries(result.summary.byType).map(([type, counts]) => (
                    <tr key={type}>
                      <th scope="row">{type}</th>
                      <td className="numeric">{counts.known}</td>
                      <td className="numeric">{counts.unknown}</td>
                      <td className="numeric">{counts["benign-listed"]}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
              <div className="table-scroll">
                <table className="data-table data-table--cards" data-testid="lookup-table">
                  <thead>
                    <tr>
                      <th scope="col">Indicator</th>
                      <th scope="col">Type</th>
                      <th scope="col">Verdict</th>
                      <th scope="col">Details</th>
                    </tr>
                  </thead>
                  <tbody>
                    {result.results.map((item) => (
                      <tr key={`${item.type} ${item.value}`} data-verdict={item.verdict}>
                        <td data-label="Indicator">
                          <IndicatorValue display={item.display} value={item.value} />
                        </td>
                        <td data-label="Type">{item.type}</td>
                        <td data-label="Verdict">
                          <VerdictBadge verdict={item.verdict} score={item.score} />
                        </td>
                        <td data-label="Details">
                          {item.benignLists.length ? <span className="badge badge--benign">⚠ {item.benignLists.join(", ")}</span> : null}
                          {item.known ? <span className="muted"> {[item.malwareFamily, item.sources.join(", ")].filter(Boolean).join(" · ")} </span> : null}
                          <Link to={item.link}>open</Link>
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            </>
          ) : null}
        </div>
      ) : null}
    </section>
  );
}
