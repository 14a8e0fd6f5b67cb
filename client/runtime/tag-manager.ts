import { appendScript } from "./third-party";

declare global {
  interface Window {
    dataLayer?: unknown[];
  }
}

export const TAG_MANAGER_URL = "https://www.googletagmanager.com/gtm.js";

/** Injects the tag manager once per configured id; nothing when none is configured. */
export function injectTagManager(ids: readonly string[]): void {
  for (const id of new Set(ids)) {
    const elementId = `tag-manager-${id}`;
    if (document.getElementById(elementId)) continue;
    window.dataLayer = window.dataLayer ?? [];
    window.dataLayer.push({ "gtm.start": Date.now(), event: "gtm.js" });
    // Analytics failing to load must never affect the page.
    appendScript(`${TAG_MANAGER_URL}?id=${encodeURIComponent(id)}`, { id: elementId }).catch(() => undefined);
  }
}
