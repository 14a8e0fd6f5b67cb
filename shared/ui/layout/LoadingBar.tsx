import { useEffect, useState } from "react";
import { useNavigation } from "react-router";
import { ROUTE_CHANGE_DELAY_MS } from "../../constants";

export const PAGE_LOADING_START = "threat-radar:page-loading-start";
export const PAGE_LOADING_END = "threat-radar:page-loading-end";

/**
 * A thin bar while a page loads. It waits ROUTE_CHANGE_DELAY_MS before
 * appearing so fast navigations do not flicker.
 */
export function LoadingBar() {
  const loading = useNavigation().state !== "idle";
  const [visible, setVisible] = useState(false);

  useEffect(() => {
    if (!loading) return;
    window.dispatchEvent(new Event(PAGE_LOADING_START));
    const timer = window.setTimeout(() => setVisible(true), ROUTE_CHANGE_DELAY_MS);
    return () => {
      window.clearTimeout(timer);
      setVisible(false);
      window.dispatchEvent(new Event(PAGE_LOADING_END));
    };
  }, [loading]);

  return <div className="loading-bar" data-visible={visible} role="progressbar" aria-hidden={!visible} aria-label="Loading page" />;
}
