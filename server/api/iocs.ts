import { Router } from "express";
import type { Kysely } from "kysely";
import type { Logger } from "pino";
import { parseIndicator } from "../../shared/ioc/detect";
import { iocListParamsSchema } from "../../shared/ioc-radar/list-params";
import type { Database } from "../db/schema";
import type { IocService } from "../ioc/service";
import { iocExportRoutes } from "./ioc-exports";
import { iocLookupRoute, type IocLookupOptions } from "./ioc-lookup";
import { sendBadRequest, validQuery } from "./validation";

export interface IocRoutesOptions extends IocLookupOptions {
  db: Kysely<Database>;
  logger: Logger;
  iocs: IocService;
  now: () => Date;
  siteUrl?: string;
}

/** `/api/v1/iocs`: the list with the page's filters, statistics, one indicator, bulk lookup, exports and an Atom feed. */
export function iocRoutes(options: IocRoutesOptions): Router {
  const { iocs, now } = options;
  const router = Router();

  router.get("/iocs", async (req, res) => {
    const params = validQuery(iocListParamsSchema, req.originalUrl, res);
    if (params) res.json(await iocs.list(params, now()));
  });

  router.get("/iocs/stats", async (req, res) => {
    const params = validQuery(iocListParamsSchema, req.originalUrl, res);
    if (params) res.json(await iocs.stats(params, now()));
  });

  router.use(iocExportRoutes(options));
  router.use(iocLookupRoute(options));

  // Last: any other path segment is read as an indicator.
  router.get("/iocs/:value", async (req, res) => {
    const read = parseIndicator(req.params.value);
    if (!read) {
      sendBadRequest(res, [{ param: "value", message: "is not an indicator (IP, CIDR, domain, URL, e-mail address or hash)" }]);
      return;
    }
    res.json(await iocs.detail(read, now()));
  });

  return router;
}
