import { cveDetailPage } from "../pages/cve-detail/page";
import { cveListPage } from "../pages/cve-list/page";
import { homePage } from "../pages/home/page";
import { iocDetailPage } from "../pages/ioc-detail/page";
import { iocListPage } from "../pages/ioc-list/page";

/**
 * The five pages of the product, in matching order. Each page module is loaded
 * on demand, on the server as in the browser; the layout and the error screen
 * are not routes of their own and ship with the entry. A page added here must
 * get a loader on the server (server/loaders/page-loaders.ts) or the typecheck fails.
 */
export const pageRoutes = [homePage, cveListPage, cveDetailPage, iocListPage, iocDetailPage] as const;

export type ProductPage = (typeof pageRoutes)[number];
export type PageId = ProductPage["id"];
