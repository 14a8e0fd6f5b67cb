import type { IocDetailData } from "../../ioc-radar/detail-types";
import { definePage } from "../../routes/define-page";

export const iocDetailPage = definePage<IocDetailData>()({
  id: "ioc-detail",
  path: "/ioc-radar/:ioc",
  middleware: ["canonical-ioc"],
  module: "shared/pages/ioc-detail/IocDetailPage.tsx",
  load: () => import("./IocDetailPage"),
});
