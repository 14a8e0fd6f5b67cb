import { Link } from "react-router";
import type { IocListParams } from "../../ioc-radar/list-params";
import { iocListSearch, type IocSortKey } from "../../ioc-radar/list-vocabulary";
import type { IocListRow } from "../../ioc-radar/list-types";
import { indicatorHref, IndicatorValue, VerdictBadge } from "../../ui/ioc/CopyButton";
import { formatDay } from "../../util/format";

/**
 * One line per indicator from the `sm` breakpoint: value (cut in the middle,
 * with copy and details), type, verdict and score, last seen, and from `md`
 * malware family and sources ("wide" columns). The secondary facts ("card"
 * columns: threat type, tags, first seen, confidence, benign lists) show in
 * the phone cards, in the cells' hover titles and on the indicator's page;
 * sorting by them is in the filters (app.css, `.ioc-table`).
 */
interface Column {
  label: string;
  sort?: IocSortKey;
  className: string;
}

const COLUMNS: Column[] = [
  { label: "Value", sort: "value", className: "col-value" },
  { label: "Type", sort: "type", className: "col-type" },
  { label: "Verdict · score", className: "col-verdict" },
  { label: "Malware family", className: "col-malware col--wide" },
  { label: "Threat type", className: "col--card" },
  { label: "Tags", className: "col--card" },
  { label: "Sources", sort: "sources", className: "col-sources col--wide" },
  { label: "First seen", sort: "first_seen", className: "col--card" },
  { label: "Last seen", sort: "last_seen", className: "col-day" },
  { label: "Confidence", sort: "confidence", className: "col--card" },
  { label: "Benign list", className: "col--card" },
];

function SortHeader({ column, params }: { column: Column; params: IocListParams }) {
  if (!column.sort)
    return (
      <th scope="col" className={column.className}>
        {column.label}
      </th>
    );
  const current = (params.sort ?? "last_seen") === column.sort;
  const dir = params.dir ?? "desc";
  const nextDir = current && dir === "desc" ? "asc" : "desc";
  const href = `/ioc-radar${iocListSearch({ ...params, sort: column.sort, dir: nextDir, page: undefined })}`;
  return (
    <th scope="col" className={column.className} aria-sort={current ? (dir === "desc" ? "descending" : "ascending") : "none"}>
      <Link to={href} className="sort-link">
        {column.label}
        <span aria-hidden="true">{current ? (dir === "desc" ? " ▼" : " ▲") : " ↕"}</span>
      </Link>
    </th>
  );
}

const dash = <span className="muted">—</span>;

export function IocTable({ rows, params }: { rows: IocListRow[]; params: IocListParams }) {
  return (
    <div className="table-scroll">
      <table className="data-table data-table--cards ioc-table" data-testid="ioc-table">
        <thead>
          <tr>
            {COLUMNS.map((column) => (
              <SortHeader key={column.label} column={column} params={params} />
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => {
            const context = [row.threatType, ...row.tags].filter(Boolean).join(", ");
            return (
              <tr key={row.id}>
                <td data-label="Value" className="col-value">
                  <span className="cell-ioc">
                    <IndicatorValue display={row.display} value={row.value} truncate />
                    <Link to={indicatorHref(row.value)} className="small cell-ioc__details" aria-label={`details of ${row.display}`}>
                      details
                    </Link>
                  </span>
                </td>
                <td data-label="Type" className="col-type nowrap">
                  {row.type}
                </td>
                <td data-label="Verdict · score" className="col-verdict">
                  <VerdictBadge
                    verdict={row.verdict}
                    score={row.score}
                    title={row.benignLists.length ? `On benign lists: ${row.benignLists.join(", ")}` : undefined}
                  />
                </td>
                <td
                  data-label="Malware family"
                  className="col-malware col--wide truncate"
                  title={context ? `${row.malwareFamily ?? "no family"} (${context})` : undefined}
                >
                  {row.malwareFamily ?? dash}
                </td>
                <td data-label="Threat type" className="col--card">
                  {row.threatType ?? dash}
                </td>
                <td data-label="Tags" className="col--card">
                  {row.tags.length ? row.tags.join(", ") : dash}
                </td>
                <td data-label="Sources" className="col-sources col--wide truncate" title={row.sources.join(", ")}>
                  {row.sources.join(", ")}
                </td>
                <td data-label="First seen" className="col--card nowrap">
                  {formatDay(row.firstSeen)}
                </td>
                <td
                  data-label="Last seen"
                  className="col-day nowrap"
                  title={row.lastSeen ? `first seen ${formatDay(row.firstSeen)}` : `no feed dates it; listed here since ${formatDay(row.listedSince)}`}
                >
                  {row.lastSeen ? formatDay(row.lastSeen) : <span className="muted">undated</span>}
                </td>
                <td data-label="Confidence" className="col--card">
                  {row.confidence ?? dash}
                </td>
                <td data-label="Benign list" className="col--card">
                  {row.benignLists.length ? (
                    <span className="badge badge--benign" title={row.benignLists.join(", ")}>
                      ⚠ {row.benignLists.join(", ")}
                    </span>
                  ) : (
                    dash
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
