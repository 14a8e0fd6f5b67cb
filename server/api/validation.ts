import type { Response } from "express";
import type { z } from "zod";
import { parseQuery, type ParamProblem } from "../../shared/query/params";

/** 400 with a body naming every bad parameter. */
export function sendBadRequest(res: Response, problems: ParamProblem[]): void {
  const names = [...new Set(problems.map((problem) => problem.param))];
  res.status(400).json({
    error: {
      statusCode: 400,
      message: `Invalid query parameter${names.length === 1 ? "" : "s"}: ${names.join(", ")}`,
      problems,
    },
  });
}

/** Parses a request's query strictly; answers 400 and returns null when any parameter is bad. */
export function validQuery<S extends z.ZodObject>(schema: S, originalUrl: string, res: Response): z.infer<S> | null {
  const { params, problems } = parseQuery(schema, new URLSearchParams(originalUrl.split("?")[1] ?? ""));
  if (problems.length === 0) return params;
  sendBadRequest(res, problems);
  return null;
}
