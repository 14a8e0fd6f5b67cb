import { useSyncExternalStore } from "react";

export type Theme = "light" | "dark";

export const THEME_STORAGE_KEY = "threat-radar:theme";

/**
 * Runs inline in <head>, before the first paint, so a stored choice applies
 * without a flash of the other theme. Kept tiny and dependency-free.
 */
export const THEME_BOOT_SCRIPT = `try{var t=localStorage.getItem(${JSON.stringify(THEME_STORAGE_KEY)});if(t==="light"||t==="dark")document.documentElement.dataset.theme=t}catch(e){}`;

const SYSTEM_DARK = "(prefers-color-scheme: dark)";

function effectiveTheme(): Theme {
  const pinned = document.documentElement.dataset.theme;
  if (pinned === "light" || pinned === "dark") return pinned;
  return window.matchMedia(SYSTEM_DARK).matches ? "dark" : "light";
}

function subscribe(onChange: () => void): () => void {
  const system = window.matchMedia(SYSTEM_DARK);
  const pinned = new MutationObserver(onChange);
  system.addEventListener("change", onChange);
  pinned.observe(document.documentElement, { attributes: true, attributeFilter: ["data-theme"] });
  return () => {
    system.removeEventListener("change", onChange);
    pinned.disconnect();
  };
}

/**
 * The theme in effect (the stored choice, else the system's), following
 * changes of either. Null on the server and while hydrating, which cannot
 * know it.
 */
export function useEffectiveTheme(): Theme | null {
  return useSyncExternalStore<Theme | null>(subscribe, effectiveTheme, () => null);
}

/** Pins a theme for this page and, where storage allows, for later visits. */
export function chooseTheme(theme: Theme): void {
  document.documentElement.dataset.theme = theme;
  try {
    localStorage.setItem(THEME_STORAGE_KEY, theme);
  } catch {
    // Storage may be disabled; the theme still applies to this page.
  }
}
