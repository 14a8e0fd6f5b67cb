import { createContext, useContext } from "react";

/**
 * A bot-check token for a form action, or null when no bot check is
 * configured. The browser entry provides reCAPTCHA's (client/runtime/bot-check.ts);
 * shared code gets it from this context so that it never imports client/.
 * The default answers null: the server renders forms but never submits them.
 */
export type BotCheck = (action: string) => Promise<string | null>;

export const BotCheckContext = createContext<BotCheck>(async () => null);

export function useBotCheck(): BotCheck {
  return useContext(BotCheckContext);
}
