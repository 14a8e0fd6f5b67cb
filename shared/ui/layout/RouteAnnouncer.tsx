import { useEffect, useRef, useState } from "react";
import { useLocation } from "react-router";

/**
 * Tells screen-reader users that a client-side navigation landed on a new
 * page, which a full page load would have told them by itself.
 */
export function RouteAnnouncer() {
  const { pathname } = useLocation();
  const [message, setMessage] = useState("");
  const first = useRef(true);

  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    setMessage(`Navigated to ${document.title}`);
  }, [pathname]);

  return (
    <div className="visually-hidden" aria-live="assertive" aria-atomic="true" role="status" data-testid="route-announcer">
      {message}
    </div>
  );
}
