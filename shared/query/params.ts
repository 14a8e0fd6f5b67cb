import type { z } from "zod";

/** A query parameter that could not be used, named for the API's 400 body and the page's notice. */
export interface ParamProblem {
  param: string;
  message: string;
}

export interface ParsedQuery<T> {
  params: T;
  problems: ParamProblem[];
}

/**
 * Query parameters as a flat record. Empty values count as absent; a repeated
 * key (several checkboxes of one form field) becomes a comma-separated list.
 */
export function queryRecord(search: URLSearchParams): Record<string, string> {
  const record: Record<string, string> = {};
  for (const [key, value] of search) {
    if (value === "") continue;
    record[key] = record[key] === undefined ? value : `${record[key]},${value}`;
  }
  return record;
}

/** No filter, search or name legitimately holds one; a NUL would even end a full-text query early. */
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f]/;

/** A parameter name fit to be echoed back in a message. */
function printable(name: string): string {
  return name.replace(/[\u0000-\u001f\u007f]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/**
 * Strict parse for the API: any bad parameter is a problem, and so is an
 * unknown one, so a typo never silently widens a query.
 */
export function parseQuery<S extends z.ZodObject>(schema: S, search: URLSearchParams): ParsedQuery<z.infer<S>> {
  const record = queryRecord(search);
  const known = new Set(Object.keys(schema.shape));
  const problems: ParamProblem[] = [];
  const usable: Record<string, string> = {};
  for (const [key, value] of Object.entries(record)) {
    if (!known.has(key)) problems.push({ param: printable(key), message: "is not a known parameter" });
    else if (CONTROL_CHARACTER.test(value)) problems.push({ param: key, message: "contains control characters" });
    else usable[key] = value;
  }
  const result = schema.safeParse(usable);
  if (result.success) return { params: result.data, problems };
  for (const issue of result.error.issues) problems.push({ param: String(issue.path[0]), message: issue.message });
  return { params: {} as z.infer<S>, problems };
}

/**
 * Lenient parse for pages: each bad parameter is reported and dropped and the
 * others still apply, so a mistyped link shows a message instead of an error.
 */
export function parseQueryLeniently<S extends z.ZodObject>(schema: S, search: URLSearchParams): ParsedQuery<z.infer<S>> {
  const strict = parseQuery(schema, search);
  if (strict.problems.length === 0) return strict;
  const bad = new Set(strict.problems.map((problem) => problem.param));
  const kept = new URLSearchParams([...search].filter(([key]) => !bad.has(key)));
  return { params: parseQuery(schema, kept).params, problems: strict.problems };
}

/**
 * The query string of a view with its keys in the given order, omitting absent
 * values (stable, shareable links). Takes the key list rather than a schema so
 * the browser can build links without loading the validation library.
 */
export function toSearch(keys: readonly string[], params: object): string {
  const search = new URLSearchParams();
  for (const key of keys) {
    const value = (params as Record<string, unknown>)[key];
    if (value === undefined || value === false || value === "" || value === null) continue;
    if (Array.isArray(value)) {
      if (value.length > 0) search.set(key, value.join(","));
    } else {
      search.set(key, value === true ? "1" : String(value));
    }
  }
  const text = search.toString();
  return text ? `?${text}` : "";
}
