import { definePage } from "../../routes/define-page";
import type { HomeData } from "../../types/home";

export const homePage = definePage<HomeData>()({
  id: "home",
  path: "/",
  module: "shared/pages/home/HomePage.tsx",
  load: () => import("./HomePage"),
});
