import type { PageDefinition } from "./types";

/**
 * Declares a page with the data its loader returns and its component reads:
 * `definePage<HomeData>()({ id: "home", path: "/", … })`. The two calls let
 * the data type be named while the id is still inferred as a literal, which
 * the server's loader table is keyed on.
 */
export function definePage<Data>() {
  return <const Id extends string>(page: PageDefinition<Id, Data>): PageDefinition<Id, Data> => page;
}
