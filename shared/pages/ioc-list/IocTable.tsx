import { Link } from "react-router";
import type { IocListParams } from "../../ioc-radar/list-params";
import { iocListSearch, type IocSortKey } from "../../ioc-radar/list-vocabulary";
import type { IocListRow } from "../../ioc-radar/list-types";
import { indicatorHref, IndicatorValue, VerdictBadge } from "../../ui/ioc/CopyButton";
import { formatDay } from "../../util/format";

interface Column {
  label: string;
  sort?: IocSortKey;
  className?: string;
}

const COLUMNS: Column[] = [
  { label: "Value", sort: "value" },
  { label: "Type", sort: "type" },
  { label: "Threat type" },
  { label: "Malware family" },
  { label: "Tags" },
  { label: "Sources", sort: "sources" },
  { label: "First seen", sort: "first_seen" },
  { label: "Last seen", sort: "last_seen" },
  { label: "Confidence", sort: "confidence", className: "numeric" },
  { label: "Score", className: "numeric" },
  { label: "Benign list" },
];

function SortHeader({ column, params }: { column: Column; params: IocListParams }) {
  if (!column.sort) return <th scope="col" className={column.className}>{column.label}</th>;
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

export function IocTable({ rows, params }: { rows: IocListRow[]; params: IocListParams }) {
  return (
    <div className="table-scroll">
      <table className="data-table data-table--cards" data-testid="ioc-table">
        <thead>
          <tr>
            {COLUMNS.map((column) => (
              <SortHeader key={column.label} column={column} params={params} />
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={row.id}>
              <td data-label="Value" className="cell-ioc">
                <IndicatorValue display={row.display} value={row.value} />{" "}
                <Link to={indicatorHref(row.value)} className="small cell-ioc__details">
                  details
                </Link>
              </td>
              <td data-label="Type" className="nowrap">{row.type}</td>
              <td data-label="Threat type">{row.threatType ?? <span className="muted">—</span>}</td>
              <td data-label="Malware family">{row.malwareFamily ?? <span className="muted">—</span>}</td>
              <td data-label="Tags">{row.tags.length ? row.tags.join(", ") : <span className="muted">—</span>}</td>
              <td data-label="Sources">{row.sources.join(", ")}</td>
              <td data-label="First seen" className="nowrap">{formatDay(row.firstSeen)}</td>
              <td data-label="Last seen" className="nowrap">{formatDay(row.lastSeen)}</td>
              <td data-label="Confidence" className="numeric">{row.confidence ?? <span className="muted">—</span>}</td>
              <td data-label="Score" className="numeric">
                <VerdictBadge verdict={row.verdict} score={row.score} />
              </td>
              <td data-label="Benign list">
                {row.benignLists.length ? (
                  <span className="badge badge--benign" title={row.benignLists.join(", ")}>
                    ⚠ {row.benignLists.join(", ")}
                  </span>
                ) : (
                  <span className="muted">—</span>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
