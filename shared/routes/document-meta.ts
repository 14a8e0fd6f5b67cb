import type { Params } from "react-router";
import { describeError } from "../error-catalogue";
import type { PageMeta, PageModule } from "./types";

interface MetaMatch {
  route: { id: string; handle?: unknown };
  params: Params;
}

export interface MetaInput {
  matches: readonly MetaMatch[];
  loaderData: Readonly<Record<string, unknown>>;
  errors: Readonly<Record<string, unknown>> | null;
  siteName: string;
  supportEmail: string;
}

function errorStatus(error: unknown): number {
  if (typeof error === "object" && error !== null) {
    const { status, statusCode } = error as { status?: unknown; statusCode?: unknown };
    if (typeof status === "number") return status;
    if (typeof statusCode === "number") return statusCode;
  }
  return 500;
}

/**
 * Title and description of the current page, computed the same way by the
 * server (into <head>) and by the browser after each navigation.
 */
export function documentMeta(input: MetaInput): PageMeta {
  const error = input.errors ? Object.values(input.errors)[0] : undefined;
  if (error !== undefined) {
    const { title, description } = describeError(errorStatus(error), input.supportEmail);
    return { title: `${title} · ${input.siteName}`, description };
  }
  const leaf = [...input.matches].reverse().find((m) => (m.route.handle as Partial<PageModule> | undefined)?.meta);
  if (!leaf) return { title: input.siteName, description: `${input.siteName}: CVE and IOC radar` };
  const meta = (leaf.route.handle as Pick<PageModule, "meta">).meta(input.loaderData[leaf.route.id], leaf.params);
  return { title: `${meta.title} · ${input.siteName}`, description: meta.description };
}
