import type { IocListData } from "../../ioc-radar/list-types";
import { definePage } from "../../routes/define-page";

export const iocListPage = definePage<IocListData>()({
  id: "ioc-list",
  path: "/ioc-radar",
  module: "shared/pages/ioc-list/IocListPage.tsx",
  load: () => import("./IocListPage"),
});
