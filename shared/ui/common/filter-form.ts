/**
 * The query string a GET filter form would submit, without its empty fields,
 * so shared links stay short. Repeated fields (checkbox groups) are joined.
 */
export function formSearch(form: HTMLFormElement): string {
  const grouped = new Map<string, string[]>();
  for (const [key, value] of new FormData(form)) {
    if (typeof value !== "string" || value.trim() === "") continue;
    grouped.set(key, [...(grouped.get(key) ?? []), value.trim()]);
  }
  const search = new URLSearchParams([...grouped].map(([key, values]) => [key, values.join(",")]));
  const text = search.toString();
  return text ? `?${text}` : "";
}
