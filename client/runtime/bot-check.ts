import { appendScript } from "./third-party";

interface ReCaptcha {
  ready(callback: () => void): void;
  execute(siteKey: string, options: { action: string }): Promise<string>;
}

declare global {
  interface Window {
    grecaptcha?: ReCaptcha;
  }
}

/** Google's alternate domain, reachable where google.com is not. */
export const BOT_CHECK_SCRIPT_URL = "https://www.recaptcha.net/recaptcha/api.js";
const LOAD_TIMEOUT_MS = 10_000;

let registration: { siteKey: string; ready: Promise<ReCaptcha> } | null = null;

/** Loads reCAPTCHA v3 once at start-up; with no site key nothing is loaded. */
export function registerBotCheck(siteKey: string | null): void {
  if (!siteKey || registration) return;
  const ready = appendScript(`${BOT_CHECK_SCRIPT_URL}?render=${encodeURIComponent(siteKey)}`, { id: "bot-check" }).then(
    () =>
      new Promise<ReCaptcha>((resolve, reject) => {
        const grecaptcha = window.grecaptcha;
        if (!grecaptcha) reject(new Error("The bot check loaded but did not start"));
        else grecaptcha.ready(() => resolve(grecaptcha));
      }),
  );
  // The page works without the bot check; only forms that need a token will say so.
  ready.catch(() => undefined);
  registration = { siteKey, ready };
}

/**
 * A token for `action`, for a form to send with its request. Resolves to null
 * when no bot check is configured; rejects when the provider cannot be reached.
 */
export async function executeBotCheck(action: string): Promise<string | null> {
  if (!registration) return null;
  const { siteKey, ready } = registration;
  const timeout = new Promise<never>((_, reject) => window.setTimeout(() => reject(new Error("The bot check did not answer in time")), LOAD_TIMEOUT_MS));
  const grecaptcha = await Promise.race([ready, timeout]);
  return grecaptcha.execute(siteKey, { action });
}
