import { useEffect, useRef, useState } from "react";
import { useNavigate } from "react-router";
import { debounce } from "../../util/debounce";

const SUGGEST_DELAY_MS = 150;

function isTyping(target: EventTarget | null): boolean {
  return target instanceof HTMLElement && (target.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName));
}

/**
 * One box for everything: a CVE id opens its page, an indicator (defanged or
 * not) its page, several indicators the bulk lookup, anything else a CVE
 * full-text search. Without JavaScript it is a plain CVE search. `/` focuses it.
 */
export function SiteSearch() {
  const navigate = useNavigate();
  const input = useRef<HTMLInputElement>(null);
  const [suggestions, setSuggestions] = useState<string[]>([]);

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== "/" || event.ctrlKey || event.metaKey || event.altKey || isTyping(event.target)) return;
      event.preventDefault();
      input.current?.focus();
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, []);

  // The ref is read when the debounced call fires, never during render; the
  // compiler's check cannot see through debounce().
  // eslint-disable-next-line react-hooks/refs
  const [suggest] = useState(() => {
    let controller: AbortController | null = null;
    return debounce(() => {
      const q = input.current?.value.trim() ?? "";
      controller?.abort();
      if (q.length < 2 || q.length > 60) return setSuggestions([]);
      controller = new AbortController();
      fetch(`/api/v1/suggest?q=${encodeURIComponent(q)}`, { signal: controller.signal })
        .then((res) => (res.ok ? (res.json() as Promise<{ suggestions: string[] }>) : { suggestions: [] }))
        .then((body) => setSuggestions(body.suggestions))
        .catch(() => undefined);
    }, SUGGEST_DELAY_MS);
  });
  useEffect(() => () => suggest.cancel(), [suggest]);

  return (
    <form
      role="search"
      className="site-search"
      action="/cve-radar"
      method="get"
      onSubmit={async (event) => {
        event.preventDefault();
        const { searchDestination } = await import("../../search/route-search");
        const destination = searchDestination(input.current?.value ?? "");
        if (destination) navigate(destination);
      }}
    >
      <input
        ref={input}
        type="search"
        name="q"
        placeholder="CVE id, indicator, or words…"
        aria-label="Search CVEs and indicators"
        aria-keyshortcuts="/"
        list="site-search-suggestions"
        autoComplete="off"
        maxLength={100_000}
        onInput={suggest}
        data-testid="site-search"
      />
      <datalist id="site-search-suggestions">
        {suggestions.map((suggestion) => (
          <option key={suggestion} value={suggestion} />
        ))}
      </datalist>
      <kbd aria-hidden="true">/</kbd>
      <button type="submit" className="button">
        Search
      </button>
    </form>
  );
}
