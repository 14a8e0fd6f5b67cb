import { useState } from "react";

/** Copies the real (refanged) value to the clipboard; the page only ever displays the defanged form. */
export function CopyButton({ value, label }: { value: string; label: string }) {
  const [state, setState] = useState<"idle" | "copied" | "failed">("idle");
  return (
    <button
      type="button"
      className="copy-button"
      aria-label={`Copy ${label}`}
      title="Copy the real value"
      data-copy-value={value}
      onClick={() => {
        navigator.clipboard.writeText(value).then(
          () => setState("copied"),
          () => setState("failed"),
        );
      }}
    >
      {state === "copied" ? "Copied" : state === "failed" ? "Copy failed" : "Copy"}
    </button>
  );
}

/** Characters kept at the end of a value truncated in the middle: a hash's or URL's last characters tell values apart. */
const TAIL = 8;

/**
 * The defanged display of a value with its copy button. `truncate` keeps it on
 * one line, cut in the middle (the start and the last characters stay in
 * view); the whole value stays in the text, in the hover title, in the copy
 * button, and shows when the copy button has focus (app.css unfolds it).
 */
export function IndicatorValue({ display, value, truncate = false }: { display: string; value: string; truncate?: boolean }) {
  const cut = truncate && display.length > TAIL * 2;
  return (
    <span className={`ioc-value${cut ? " ioc-value--truncated" : ""}`}>
      {cut ? (
        <code className="mono ioc-value__text" title={display}>
          <span className="ioc-value__head">{display.slice(0, -TAIL)}</span>
          <span className="ioc-value__tail">{display.slice(-TAIL)}</span>
        </code>
      ) : (
        <code className="mono break">{display}</code>
      )}{" "}
      <CopyButton value={value} label={display} />
    </span>
  );
}

export function ExternalLink({ href, children }: { href: string; children: React.ReactNode }) {
  return (
    <a href={href} rel="noopener noreferrer" target="_blank" data-allow-external="">
      {children}
    </a>
  );
}

/** The detail page of a canonical value (the list and lookup only carry canonical values). */
export function indicatorHref(value: string): string {
  return `/ioc-radar/${encodeURIComponent(value)}`;
}

export function VerdictBadge({ verdict, score, title }: { verdict: string; score?: number | null; title?: string }) {
  return (
    <span className={`verdict verdict--${verdict}`} title={title}>
      {verdict}
      {score !== undefined && score !== null ? ` · ${score}` : ""}
    </span>
  );
}
