import type { ReactNode } from "react";

/**
 * The list filters inside a disclosure. On phones it starts closed, so the
 * first results are near the top, and its summary says how many filters are
 * in force; from the `sm` breakpoint the stylesheet shows the content whether
 * or not it is open and hides the summary (app.css, `.filters-disclosure`).
 */
export function FilterDisclosure({ active, children }: { active: number; children: ReactNode }) {
  return (
    <details className="filters-disclosure">
      <summary className="filters-disclosure__summary">Filters and sort{active > 0 ? ` · ${active} active` : ""}</summary>
      {children}
    </details>
  );
}

/** How many of a view's filters are set (sorting and paging are not filters). */
export function activeFilterCount(params: object, filterKeys: readonly string[]): number {
  const record = params as Record<string, unknown>;
  return filterKeys.filter((key) => {
    const value = record[key];
    return value !== undefined && value !== null && value !== "" && value !== false && !(Array.isArray(value) && value.length === 0);
  }).length;
}
