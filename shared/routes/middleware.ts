import { redirect } from "react-router";
import { throwNotFound } from "./route-errors";
import type { RouteMiddleware } from "./types";
import { parseCveId } from "../cve/cve-id";

function pathOf(request: Request): string {
  return new URL(request.url).pathname;
}

/** Redirects a case variant of a CVE id to its canonical upper-case URL. */
const canonicalCve: RouteMiddleware = ({ params, request }) => {
  const id = parseCveId(params.cve ?? "");
  if (!id) throwNotFound(pathOf(request));
  if (id !== params.cve) {
    const url = new URL(request.url);
    throw redirect(`/cve-radar/${id}${url.search}`, 301);
  }
};

/**
 * Redirects a defanged or differently cased indicator to its canonical URL.
 * The normaliser carries the public-suffix list and the IDNA tables, so the
 * browser loads it only when it opens an indicator.
 */
const canonicalIoc: RouteMiddleware = async ({ params, request }) => {
  const { canonicalIndicatorPath } = await import("../ioc/indicator-path");
  const canonical = canonicalIndicatorPath(params.ioc ?? "");
  if (!canonical) throwNotFound(pathOf(request));
  const url = new URL(request.url);
  if (canonical !== url.pathname) throw redirect(`${canonical}${url.search}`, 301);
};

export const routeMiddleware: Readonly<Record<string, RouteMiddleware>> = {
  "canonical-cve": canonicalCve,
  "canonical-ioc": canonicalIoc,
};
