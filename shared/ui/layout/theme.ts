export type Theme = "light" | "dark";

export const THEME_STORAGE_KEY = "threat-radar:theme";

/**
 * Runs inline in <head>, before the first paint, so a stored choice applies
 * without a flash of the other theme. Kept tiny and dependency-free.
 */
export const THEME_BOOT_SCRIPT = `try{var t=localStorage.getItem(${JSON.stringify(THEME_STORAGE_KEY)});if(t==="light"||t==="dark")document.documentElement.dataset.theme=t}catch(e){}`;
