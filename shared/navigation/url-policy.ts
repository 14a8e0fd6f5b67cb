/** Protocols that can run code or smuggle content: never navigated to, allowed or not. */
const FORBIDDEN_PROTOCOLS = new Set(["javascript:", "data:", "vbscript:"]);

export type HrefKind = "internal" | "external" | "forbidden";

/**
 * Classifies a link target relative to the current origin. Control characters
 * and whitespace are stripped first, as browsers do, so "java\tscript:" is
 * still recognised.
 */
export function classifyHref(href: string, origin: string): HrefKind {
  const cleaned = href.replace(/[\u0000-\u0020\u007f-\u009f]/g, "");
  let url: URL;
  try {
    url = new URL(cleaned, origin);
  } catch {
    return "forbidden";
  }
  if (FORBIDDEN_PROTOCOLS.has(url.protocol)) return "forbidden";
  if (url.origin === origin) return "internal";
  return "external";
}

/** Whether a navigation to `href` may proceed under the external-navigation policy. */
export function mayNavigate(href: string, origin: string, options: { allowExternal?: boolean; allowedOrigins?: readonly string[] } = {}): boolean {
  const kind = classifyHref(href, origin);
  if (kind === "forbidden") return false;
  if (kind === "internal" || options.allowExternal) return true;
  return (options.allowedOrigins ?? []).includes(new URL(href, origin).origin);
}
