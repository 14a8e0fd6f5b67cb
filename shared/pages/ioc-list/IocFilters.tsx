import { Form, Link, useNavigate } from "react-router";
import { INDICATOR_TYPES } from "../../ioc/types";
import type { IocListParams } from "../../ioc-radar/list-params";
import { IOC_LIST_KEYS, IOC_PAGE_SIZE_DEFAULT, IOC_PAGE_SIZE_MAX, IOC_SORT_KEYS, SEEN_WINDOWS } from "../../ioc-radar/list-vocabulary";
import type { IocFacets } from "../../ioc-radar/list-types";
import { activeFilterCount, FilterDisclosure } from "../../ui/common/FilterDisclosure";
import { formSearch } from "../../ui/common/filter-form";
import { OrderControls } from "../../ui/common/OrderControls";

/** The keys that narrow the list (the others order or page it). */
const FILTER_KEYS = IOC_LIST_KEYS.filter((key) => !["sort", "dir", "page", "per_page"].includes(key));

/** Short enough for a phone's select; "seen" is always the feeds' own time, "listed here" this instance's. */
export const SORT_LABELS: Record<(typeof IOC_SORT_KEYS)[number], string> = {
  last_seen: "Last seen",
  first_seen: "First seen",
  listed_since: "Listed here",
  confidence: "Confidence",
  sources: "Sources",
  value: "Value",
  type: "Type",
};

/** A plain GET form: it works without JavaScript, and with it the router navigates without reloading. */
export function IocFilters({ params, facets }: { params: IocListParams; facets: IocFacets }) {
  const navigate = useNavigate();
  return (
    <FilterDisclosure active={activeFilterCount(params, FILTER_KEYS)}>
      <Form
        method="get"
        action="/ioc-radar"
        className="filters"
        aria-label="Filter indicators"
        onSubmit={(event) => {
          event.preventDefault();
          navigate(`/ioc-radar${formSearch(event.currentTarget)}`);
        }}
      >
        <div className="filters__row">
          <label className="filters__search">
            <span>Search</span>
            <input type="search" name="q" defaultValue={params.q ?? ""} placeholder="Indicator, family or text…" maxLength={200} />
          </label>
          <fieldset className="filters__severity">
            <legend>Type</legend>
            {INDICATOR_TYPES.map((type) => (
              <label key={type} className="checkbox">
                <input type="checkbox" name="type" value={type} defaultChecked={params.type?.includes(type)} />
                {type}
              </label>
            ))}
          </fieldset>
        </div>
        <div className="filters__grid">
          <label>
            <span>Threat type</span>
            <select name="threat_type" defaultValue={params.threat_type ?? ""}>
              <option value="">Any</option>
              {facets.threatTypes.map((threat) => (
                <option key={threat} value={threat}>
                  {threat}
                </option>
              ))}
            </select>
          </label>
          <label>
            <span>Malware family</span>
            <input type="text" name="malware" defaultValue={params.malware ?? ""} maxLength={120} />
          </label>
          <label>
            <span>Tag</span>
            <input type="text" name="tag" defaultValue={params.tag ?? ""} maxLength={120} />
          </label>
          <label>
            <span>Source</span>
            <select name="source" defaultValue={params.source ?? ""}>
              <option value="">Any</option>
              {facets.sources.map((source) => (
                <option key={source} value={source}>
                  {source}
                </option>
              ))}
            </select>
          </label>
          <label>
            <span>Seen within</span>
            <select name="seen" defaultValue={params.seen ?? ""}>
              <option value="">Any time</option>
              {Object.keys(SEEN_WINDOWS).map((window) => (
                <option key={window} value={window}>
                  {window}
                </option>
              ))}
            </select>
          </label>
          <OrderControls
            sortKeys={IOC_SORT_KEYS}
            sortLabels={SORT_LABELS}
            sort={params.sort ?? "last_seen"}
            dir={params.dir ?? "desc"}
            perPage={params.per_page ?? IOC_PAGE_SIZE_DEFAULT}
            pageSizes={[IOC_PAGE_SIZE_DEFAULT, 50, IOC_PAGE_SIZE_MAX]}
          />
        </div>
        <div className="filters__row filters__actions">
          <button type="submit" className="button button--primary">
            Apply filters
          </button>
          <Link to="/ioc-radar" className="button">
            Clear
          </Link>
        </div>
      </Form>
    </FilterDisclosure>
  );
}
