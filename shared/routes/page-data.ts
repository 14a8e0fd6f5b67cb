import { useLoaderData } from "react-router";
import type { PageData, PageRoute } from "./types";

/**
 * The loader data of the page being rendered, typed by its definition:
 * `usePageData<typeof homePage>()`. The one cast lives here; what makes it
 * true is the server's loader table, which the typecheck holds to each
 * page's data type (server/loaders/page-loaders.ts).
 */
export function usePageData<Page extends PageRoute>(): PageData<Page> {
  return useLoaderData() as PageData<Page>;
}
