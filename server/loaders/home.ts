import type { HomeData } from "../../shared/types/home";
import type { RequestContext } from "../http/request-context";

export function loadHome({ overview, now }: RequestContext): Promise<HomeData> {
  return overview(now());
}
