/**
 * The list form's sort, order and page-size choices, the same on every list:
 * one place for their wording, which must stay short enough for a phone.
 */
export function OrderControls<K extends string>({
  sortKeys,
  sortLabels,
  sort,
  dir,
  perPage,
  pageSizes,
}: {
  sortKeys: readonly K[];
  sortLabels: Readonly<Record<K, string>>;
  sort: K;
  dir: "asc" | "desc";
  perPage: number;
  pageSizes: readonly number[];
}) {
  return (
    <>
      <label>
        <span>Sort by</span>
        <select name="sort" defaultValue={sort}>
          {sortKeys.map((key) => (
            <option key={key} value={key}>
              {sortLabels[key]}
            </option>
          ))}
        </select>
      </label>
      <label>
        <span>Order</span>
        <select name="dir" defaultValue={dir}>
          <option value="desc">High / new first</option>
          <option value="asc">Low / old first</option>
        </select>
      </label>
      <label>
        <span>Per page</span>
        <select name="per_page" defaultValue={String(perPage)}>
          {pageSizes.map((size) => (
            <option key={size} value={size}>
              {size}
            </option>
          ))}
        </select>
      </label>
    </>
  );
}
