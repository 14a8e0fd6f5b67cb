import { useEffect, useState, type RefObject } from "react";

/** The longest a visible chart waits for the browser to be idle. */
const IDLE_TIMEOUT_MS = 2_000;

/**
 * True once the element is in the viewport and the browser has had an idle
 * moment after that. Charts wait for it: loading and drawing ECharts while
 * the page hydrates would hold up the first interactions, and a chart below
 * the fold (on a phone the lists' charts sit under the filters) need not be
 * drawn before anyone scrolls to it; its box is reserved, so nothing moves
 * when it appears.
 */
export function useVisibleWhenIdle(element: RefObject<Element | null>): boolean {
  const [ready, setReady] = useState(false);
  useEffect(() => {
    const target = element.current;
    if (!target || ready) return;
    let cancelIdle = () => {};
    const observer = new IntersectionObserver((entries) => {
      if (!entries.some((entry) => entry.isIntersecting)) return;
      observer.disconnect();
      if ("requestIdleCallback" in window) {
        const handle = window.requestIdleCallback(() => setReady(true), { timeout: IDLE_TIMEOUT_MS });
        cancelIdle = () => window.cancelIdleCallback(handle);
      } else {
        const handle = setTimeout(() => setReady(true), 0);
        cancelIdle = () => clearTimeout(handle);
      }
    });
    observer.observe(target);
    return () => {
      observer.disconnect();
      cancelIdle();
    };
  }, [element, ready]);
  return ready;
}
