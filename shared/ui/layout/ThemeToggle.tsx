import { chooseTheme, useEffectiveTheme, type Theme } from "./theme";

/** Switches between light and dark; the choice is remembered (see THEME_BOOT_SCRIPT). */
export function ThemeToggle() {
  const theme = useEffectiveTheme();
  const next: Theme = theme === "dark" ? "light" : "dark";
  return (
    <button
      type="button"
      className="button theme-toggle"
      data-testid="theme-toggle"
      aria-label={theme ? `Switch to the ${next} theme` : "Switch colour theme"}
      onClick={() => chooseTheme(next)}
    >
      <span aria-hidden="true">{theme === "dark" ? "☀" : "☾"}</span>
    </button>
  );
}
