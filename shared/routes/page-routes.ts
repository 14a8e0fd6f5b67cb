import type { PageRoute } from "./types";

/**
 * The five pages of the product. Each page module is loaded on demand, on the
 * server as in the browser; the layout and the error screen are not routes of
 * their own and ship with the entry.
 */
export const pageRoutes: readonly PageRoute[] = [
  { id: "home", path: "/", load: () => import("../pages/home/HomePage") },
  { id: "cve-list", path: "/cve-radar", load: () => import("../pages/cve-list/CveListPage") },
  {
    id: "cve-detail",
    path: "/cve-radar/:cve",
    middleware: ["canonical-cve"],
    load: () => import("../pages/cve-detail/CveDetailPage"),
  },
  { id: "ioc-list", path: "/ioc-radar", load: () => import("../pages/ioc-list/IocListPage") },
  {
    id: "ioc-detail",
    path: "/ioc-radar/:ioc",
    middleware: ["canonical-ioc"],
    load: () => import("../pages/ioc-detail/IocDetailPage"),
  },
];
