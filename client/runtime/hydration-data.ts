import { UNSAFE_ErrorResponseImpl, type HydrationState } from "react-router";

declare global {
  interface Window {
    __staticRouterHydrationData?: HydrationState;
  }
}

interface SerializedError {
  __type?: string;
  status?: number;
  statusText?: string;
  data?: unknown;
  internal?: boolean;
  message?: string;
}

/**
 * The loader data and errors the server rendered with, as StaticRouterProvider
 * serialised them; errors become error objects again so the error screen
 * renders exactly what the server did.
 */
export function readHydrationData(): HydrationState | undefined {
  const state = window.__staticRouterHydrationData;
  if (!state?.errors) return state;
  const errors: Record<string, unknown> = {};
  for (const [routeId, value] of Object.entries(state.errors as Record<string, SerializedError>)) {
    if (value?.__type === "RouteErrorResponse") {
      errors[routeId] = new UNSAFE_ErrorResponseImpl(value.status ?? 500, value.statusText, value.data, value.internal === true);
    } else if (value?.__type === "Error") {
      errors[routeId] = new Error(value.message);
    } else {
      errors[routeId] = value;
    }
  }
  return { ...state, errors };
}
