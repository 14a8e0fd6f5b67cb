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

/** The defanged display of a value with its copy button. */
export function IndicatorValue({ display, value }: { display: string; value: string }) {
  return (
    <span className="ioc-value">
      <code className="mono break">{display}</code> <CopyButton value={value} label={display} />
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

export function VerdictBadge({ verdict, score }: { verdict: string; score?: number | null }) {
  return (
    <span className={`verdict verdict--${verdict}`}>
      {verdict}
      {score !== undefined && score !== null ? ` · ${score}` : ""}
    </span>
  );
}
