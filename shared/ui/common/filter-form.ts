/**
 * The query string a GET filter form would submit, without its empty fields
 * and fields left at their default, so shared links stay short. Repeated
 * fields (checkbox groups) are joined.
 */
export function formSearch(form: HTMLFormElement, defaults: Readonly<Record<string, string>> = {}): string {
  const grouped = new Map<string, string[]>();
  for (const [key, value] of new FormData(form)) {
    if (typeof value !== "string" || value.trim() === "" || defaults[key] === value) continue;
    grouped.set(key, [...(grouped.get(key) ?? []), value.trim()]);
  }
  const search = new URLSearchParams([...grouped].map(([key, values]) => [key, values.join(",")]));
  const text = search.toString();
  return text ? `?${text}` : "";
}
