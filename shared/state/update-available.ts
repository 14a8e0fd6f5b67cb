import { useSyncExternalStore } from "react";

/**
 * Whether the server now serves a newer build than the one running in this
 * tab. The browser's build watcher sets it; the layout shows a notice.
 */
let available = false;
const listeners = new Set<() => void>();

export function markUpdateAvailable(): void {
  if (available) return;
  available = true;
  for (const listener of listeners) listener();
}

export function isUpdateAvailable(): boolean {
  return available;
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function useUpdateAvailable(): boolean {
  return useSyncExternalStore(subscribe, isUpdateAvailable, () => false);
}
