import { BOOT_STATE_GLOBAL, type BootState } from "../../shared/config/public-config";

/** The boot state a page injected, parsed back the way the browser would. */
export function readBootState(html: string): BootState {
  const match = new RegExp(`window\\.${BOOT_STATE_GLOBAL}=(.*?);</script>`).exec(html);
  if (!match) throw new Error("no boot state in page");
  return JSON.parse(match[1]!) as BootState;
}

export function cspNonce(header: string | undefined): string {
  const nonce = /'nonce-([^']+)'/.exec(header ?? "")?.[1];
  if (!nonce) throw new Error(`no nonce in CSP: ${header}`);
  return nonce;
}
