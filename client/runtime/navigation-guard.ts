import type { PublicConfig } from "../../shared/config/public-config";
import { mayNavigate } from "../../shared/navigation/url-policy";

export const ALLOW_EXTERNAL_ATTRIBUTE = "data-allow-external";

/**
 * Stops clicks on links that would leave the site unless the link says it
 * may (the attribute above) or its origin is configured as allowed; links to
 * javascript:, data: and vbscript: URLs never navigate.
 */
export function installNavigationGuard(config: PublicConfig): void {
  document.addEventListener(
    "click",
    (event) => {
      const anchor = (event.target as Element | null)?.closest?.("a[href]");
      // A download does not navigate; chart exports are data: and blob: downloads.
      if (!(anchor instanceof HTMLAnchorElement) || anchor.hasAttribute("download")) return;
      const allowed = mayNavigate(anchor.getAttribute("href") ?? "", window.location.origin, {
        allowExternal: anchor.hasAttribute(ALLOW_EXTERNAL_ATTRIBUTE),
        allowedOrigins: config.allowedExternalOrigins,
      });
      if (!allowed) {
        event.preventDefault();
        event.stopImmediatePropagation();
        console.warn(`Navigation to ${anchor.href} was blocked by the external-link policy`);
      }
    },
    { capture: true },
  );
}
