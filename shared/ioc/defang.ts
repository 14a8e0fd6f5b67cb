import type { Indicator } from "./types";
import { parseUrl } from "./url";

function bracketDots(text: string): string {
  return text.replaceAll(".", "[.]");
}

const DEFANGED_SCHEMES: Readonly<Record<string, string>> = {
  http: "hxxp",
  https: "hxxps",
  ftp: "fxp",
  ftps: "fxps",
};

/**
 * Display form that mail clients, chat tools and browsers will not turn into
 * a live link: hxxp scheme, "[.]" in host names and addresses, "[@]" in
 * e-mail addresses. The URL path and query stay as they are so the analyst
 * sees the real value; `refang` reverses every change made here.
 */
export function defang(indicator: Indicator): string {
  const { type, value } = indicator;
  switch (type) {
    case "url": {
      const parts = parseUrl(value);
      if (parts === null) return value;
      const host = parts.hostKind === "ipv6" ? `[${parts.host}]` : bracketDots(parts.host);
      const port = parts.port === null ? "" : `:${parts.port}`;
      return `${DEFANGED_SCHEMES[parts.scheme] ?? parts.scheme}://${host}${port}${parts.rest}`;
    }
    case "email": {
      const at = value.lastIndexOf("@");
      return `${value.slice(0, at)}[@]${bracketDots(value.slice(at + 1))}`;
    }
    case "domain":
    case "ipv4":
    case "cidr":
    case "ip:port":
      return bracketDots(value);
    case "ipv6":
    case "md5":
    case "sha1":
    case "sha256":
    case "sha512":
      return value;
  }
}
