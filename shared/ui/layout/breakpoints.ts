import { useSyncExternalStore } from "react";
import { BREAKPOINTS, type Breakpoint } from "../../constants";

/**
 * The media query that holds from a breakpoint up, written exactly as the
 * stylesheet writes it (client/styles/app.css; tests/unit/shell/breakpoints.test.ts
 * keeps the two in step).
 */
export function minWidthQuery(name: Breakpoint): string {
  return `(min-width: ${BREAKPOINTS[name]}px)`;
}

/**
 * Whether the viewport is at least the breakpoint wide, following resizes.
 * The server does not know the viewport: it answers false, and the browser
 * re-renders with the real answer after hydrating.
 */
export function useMinWidth(name: Breakpoint): boolean {
  const query = minWidthQuery(name);
  return useSyncExternalStore(
    (onChange) => {
      const list = window.matchMedia(query);
      list.addEventListener("change", onChange);
      return () => list.removeEventListener("change", onChange);
    },
    () => window.matchMedia(query).matches,
    () => false,
  );
}
