import { z } from "zod";
import { egressFetch } from "../runtime/egress";

export interface BotCheckConfig {
  secret: string;
  verifyUrl: string;
  minScore: number;
}

export type BotCheckOutcome = { ok: true; score: number | null } | { ok: false; reason: string };

const VERIFY_TIMEOUT_MS = 5_000;

const verificationSchema = z.object({
  success: z.boolean(),
  score: z.number().optional(),
  action: z.string().optional(),
  "error-codes": z.array(z.string()).optional(),
});

/**
 * Verifies a reCAPTCHA v3 token with the provider's siteverify endpoint: the
 * token must be valid, issued for `action`, and score at least `minScore`.
 * An unreachable provider fails closed.
 */
export async function verifyBotCheck(config: BotCheckConfig, token: string, action: string, remoteIp: string | undefined): Promise<BotCheckOutcome> {
  const body = new URLSearchParams({ secret: config.secret, response: token });
  if (remoteIp) body.set("remoteip", remoteIp);
  let answer: unknown;
  try {
    const res = await egressFetch(config.verifyUrl, { method: "POST", body, signal: AbortSignal.timeout(VERIFY_TIMEOUT_MS) });
    if (!res.ok) return { ok: false, reason: `the verification service answered HTTP ${res.status}` };
    answer = await res.json();
  } catch {
    return { ok: false, reason: "the verification service could not be reached" };
  }
  const parsed = verificationSchema.safeParse(answer);
  if (!parsed.success) return { ok: false, reason: "the verification service gave an unreadable answer" };
  const result = parsed.data;
  if (!result.success) return { ok: false, reason: `the token was rejected (${(result["error-codes"] ?? []).join(", ") || "no reason given"})` };
  if (result.action !== undefined && result.action !== action) return { ok: false, reason: `the token was issued for "${result.action}", not "${action}"` };
  if (result.score !== undefined && result.score < config.minScore) return { ok: false, reason: "the bot check score is too low" };
  return { ok: true, score: result.score ?? null };
}
