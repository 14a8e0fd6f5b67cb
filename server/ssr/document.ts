import { BOOT_STATE_GLOBAL, type BootState } from "../../shared/config/public-config";
import { LOCALE } from "../../shared/constants";
import type { PageMeta } from "../../shared/routes/types";
import { THEME_BOOT_SCRIPT } from "../../shared/ui/layout/theme";
import { escapeHtml, serializeForScript } from "./serialize";

export interface DocumentHeadInput {
  meta: PageMeta;
  boot: BootState;
  nonce: string;
  stylesheets: readonly string[];
  modulePreloads: readonly string[];
  /** Extra markup for <head>, already nonce'd (Vite's dev preamble). */
  devHead?: string;
}

export const ROOT_ELEMENT_ID = "root";

/**
 * Everything before the React stream: written as soon as the data is loaded so
 * the browser can fetch styles and scripts while React renders.
 */
export function documentHead(input: DocumentHeadInput): string {
  const nonce = escapeHtml(input.nonce);
  return [
    `<!DOCTYPE html><html lang="${LOCALE}"><head>`,
    `<meta charset="utf-8">`,
    `<meta name="viewport" content="width=device-width, initial-scale=1">`,
    `<title>${escapeHtml(input.meta.title)}</title>`,
    `<meta name="description" content="${escapeHtml(input.meta.description)}">`,
    `<link rel="icon" href="/favicon.svg" type="image/svg+xml">`,
    ...input.stylesheets.map((href) => `<link rel="stylesheet" href="${escapeHtml(href)}">`),
    ...input.modulePreloads.map((href) => `<link rel="modulepreload" href="${escapeHtml(href)}">`),
    // Runs before the first paint, so a stored theme choice applies without a flash.
    `<script nonce="${nonce}">${THEME_BOOT_SCRIPT}</script>`,
    `<script nonce="${nonce}">window.${BOOT_STATE_GLOBAL}=${serializeForScript(input.boot)};</script>`,
    input.devHead ?? "",
    `</head><body><div id="${ROOT_ELEMENT_ID}" data-hydration="hydrating">`,
  ].join("");
}

export const DOCUMENT_TAIL = "</div></body></html>";
