export interface NavigationEntry {
  from: string;
  to: string;
  timestamp: number;
}

const STORAGE_KEY = "threat-radar:navigation-history";
const MAX_ENTRIES = 50;

/** The tab's navigation history, newest last; kept in sessionStorage so it survives reloads. */
export function readNavigationHistory(storage: Storage): NavigationEntry[] {
  try {
    const parsed: unknown = JSON.parse(storage.getItem(STORAGE_KEY) ?? "[]");
    return Array.isArray(parsed) ? (parsed as NavigationEntry[]) : [];
  } catch {
    return [];
  }
}

export function recordNavigation(storage: Storage, entry: NavigationEntry): NavigationEntry[] {
  const entries = [...readNavigationHistory(storage), entry].slice(-MAX_ENTRIES);
  try {
    storage.setItem(STORAGE_KEY, JSON.stringify(entries));
  } catch {
    // A full or disabled storage must not break navigation; the history is a convenience.
  }
  return entries;
}
