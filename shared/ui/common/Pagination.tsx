import { Link } from "react-router";
import { formatCount } from "../../util/format";

interface PaginationProps {
  page: number;
  pageCount: number;
  total: number;
  /** The link to a given page of the current view. */
  hrefFor: (page: number) => string;
}

function pagesAround(page: number, pageCount: number): number[] {
  const pages = new Set([1, pageCount, page - 2, page - 1, page, page + 1, page + 2]);
  return [...pages].filter((p) => p >= 1 && p <= pageCount).sort((a, b) => a - b);
}

export function Pagination({ page, pageCount, total, hrefFor }: PaginationProps) {
  const pages = pagesAround(page, pageCount);
  return (
    <nav className="pagination" aria-label="Pages">
      <span className="pagination__summary">
        Page {formatCount(page)} of {formatCount(pageCount)} · {formatCount(total)} results
      </span>
      <ul>
        <li>
          {page > 1 ? (
            <Link to={hrefFor(page - 1)} rel="prev">
              Previous
            </Link>
          ) : (
            <span aria-disabled="true">Previous</span>
          )}
        </li>
        {pages.map((p, index) => (
          <li key={p}>
            {index > 0 && p - (pages[index - 1] ?? p) > 1 ? <span className="pagination__gap">…</span> : null}
            {p === page ? <span aria-current="page">{formatCount(p)}</span> : <Link to={hrefFor(p)}>{formatCount(p)}</Link>}
          </li>
        ))}
        <li>
          {page < pageCount ? (
            <Link to={hrefFor(page + 1)} rel="next">
              Next
            </Link>
          ) : (
            <span aria-disabled="true">Next</span>
          )}
        </li>
      </ul>
    </nav>
  );
}

/** What a list shows instead of an empty table when the page asked for lies past its last page. */
export function PastTheEnd({ page, pageCount, hrefFor }: Omit<PaginationProps, "total">) {
  return (
    <div className="empty-state" role="status">
      <p>
        Page {formatCount(page)} is past the end of the results: these filters give {formatCount(pageCount)} page
        {pageCount === 1 ? "" : "s"}.
      </p>
      <p>
        <Link to={hrefFor(pageCount)}>Go to the last page (page {formatCount(pageCount)})</Link>
      </p>
    </div>
  );
}
