import { data } from "react-router";
import { pageNotFoundMessage } from "../error-catalogue";

export interface RouteErrorBody {
  message: string;
}

/** Throws an error response that the error screen renders with this status. */
export function throwStatus(status: number, message: string): never {
  throw data<RouteErrorBody>({ message }, { status });
}

export function throwNotFound(path: string): never {
  throwStatus(404, pageNotFoundMessage(path));
}
