import { useEffect, useState, type RefObject } from "react";

/** How far below the viewport a chart starts loading, so it is drawn by the time it scrolls in. */
const ROOT_MARGIN = "200px";
/** The longest a visible chart waits for the browser to be idle. */
const IDLE_TIMEOUT_MS = 2_000;

/**
 * True once the element is near the viewport and the browser has had an
 * idle moment after that. Charts wait for it: loading and drawing ECharts
 * while the page hydrates would hold up the first interactions, and a chart
 * far below the fold need not be drawn before anyone scrolls to it.
 */
export function useVisibleWhenIdle(element: RefObject<Element | null>): boolean {
  const [ready, setReady] = useState(false);
  useEffect(() => {
    const target = element.current;
    if (!target || ready) return;
    let cancelIdle = () => {};
    const observer = new IntersectionObserver(
      (entries) => {
        if (!entries.some((entry) => entry.isIntersecting)) return;
        observer.disconnect();
        if ("requestIdleCallback" in window) {
          const handle = window.requestIdleCallback(() => setReady(true), { timeout: IDLE_TIMEOUT_MS });
          cancelIdle = () => window.cancelIdleCallback(handle);
        } else {
          const handle = setTimeout(() => setReady(true), 0);
          cancelIdle = () => clearTimeout(handle);
        }
      },
      { rootMargin: ROOT_MARGIN },
    );
    observer.observe(target);
    return () => {
      observer.disconnect();
      cancelIdle();
    };
  }, [element, ready]);
  return ready;
}
