import { useEffect, useRef } from "react";
import { useLocation } from "react-router";
import { recordNavigation } from "../../navigation/history";

/** Records each navigation and puts the viewport where the new page expects it. */
export function NavigationEffects() {
  const location = useLocation();
  const previous = useRef<string | null>(null);

  useEffect(() => {
    const to = `${location.pathname}${location.search}${location.hash}`;
    const from = previous.current;
    previous.current = to;
    if (from === null || from === to) return;
    recordNavigation(window.sessionStorage, { from, to, timestamp: Date.now() });

    const target = location.hash ? document.getElementById(decodeURIComponent(location.hash.slice(1))) : null;
    if (target) target.scrollIntoView();
    else if (from.split(/[?#]/)[0] !== location.pathname) window.scrollTo(0, 0);
  }, [location]);

  return null;
}
