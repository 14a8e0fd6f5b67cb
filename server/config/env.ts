import { z } from "zod";
import type { PublicConfig } from "../../shared/config/public-config";

const commaList = z
  .string()
  .default("")
  .transform((value) =>
    value
      .split(",")
      .map((item) => item.trim())
      .filter(Boolean),
  );

const baseUrl = z.string().refine((value) => value.startsWith("/") || URL.canParse(value), {
  message: "must be a path starting with / or an absolute URL",
});

/**
 * Every environment variable the server reads, with its default. The README's
 * configuration table mirrors this schema.
 */
export const envSchema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  HOST: z.string().min(1).default("0.0.0.0"),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  DATABASE_PATH: z.string().min(1).default("./data/threat-radar.sqlite"),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  TRUST_PROXY: z.string().default("false"),
  SSR_ABORT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
  DATABASE_READ_THREADS: z.coerce.number().int().min(1).max(64).optional(),
  QUERY_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
  SERVE_CONCURRENCY: z.coerce.number().int().min(1).max(1024).default(8),
  SERVE_QUEUE_MS: z.coerce.number().int().min(10).max(60_000).default(1_000),
  SERVE_QUEUE_MAX: z.coerce.number().int().min(1).max(100_000).default(1_000),
  PAGE_CACHE_MB: z.coerce.number().int().min(0).max(4_096).default(64),
  COMPRESSION_LEVEL: z.coerce.number().int().min(1).max(9).default(6),
  SHUTDOWN_GRACE_MS: z.coerce.number().int().min(0).max(120_000).default(10_000),
  RATE_LIMIT_WINDOW_MS: z.coerce.number().int().min(1000).default(60_000),
  RATE_LIMIT_PAGES_MAX: z.coerce.number().int().min(1).default(300),
  RATE_LIMIT_API_MAX: z.coerce.number().int().min(1).default(600),
  RATE_LIMIT_LOOKUP_MAX: z.coerce.number().int().min(1).default(30),
  SITE_URL: z.url({ protocol: /^https?$/ }).optional(),
  PUBLIC_SITE_NAME: z.string().min(1).max(80).default("Threat Radar"),
  PUBLIC_API_BASE_URL: baseUrl.default("/"),
  PUBLIC_OLD_BASE_URL: baseUrl.default("/"),
  PUBLIC_SUPPORT_EMAIL: z.email().default("support@localhost.localdomain"),
  PUBLIC_ALLOWED_EXTERNAL_ORIGINS: commaList.pipe(z.array(z.url({ protocol: /^https?$/ }))),
  RECAPTCHA_SITE_KEY: z
    .string()
    .regex(/^[\w-]{10,100}$/, "must be a reCAPTCHA v3 site key")
    .optional(),
  RECAPTCHA_SECRET_KEY: z.string().min(1).optional(),
  RECAPTCHA_VERIFY_URL: z.url({ protocol: /^https?$/ }).default("https://www.recaptcha.net/recaptcha/api/siteverify"),
  RECAPTCHA_MIN_SCORE: z.coerce.number().min(0).max(1).default(0.5),
  GTM_IDS: commaList.pipe(z.array(z.string().regex(/^GTM-[A-Z0-9]{4,12}$/, "must be ids like GTM-XXXXXXX"))),
}).superRefine((env, ctx) => {
  // A site key alone would load the bot check in browsers while the server accepted any token.
  if (env.RECAPTCHA_SITE_KEY && !env.RECAPTCHA_SECRET_KEY) {
    ctx.addIssue({ code: "custom", path: ["RECAPTCHA_SECRET_KEY"], message: "is required when RECAPTCHA_SITE_KEY is set, to verify bot-check tokens" });
  }
});

export type Env = z.infer<typeof envSchema>;

export class ConfigError extends Error {
  override name = "ConfigError";
}

/** Validates the environment once, at start-up; the message names each bad variable. */
export function loadEnv(source: NodeJS.ProcessEnv = process.env): Env {
  const result = envSchema.safeParse(source);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => `  ${issue.path.join(".")}: ${issue.message}`);
  throw new ConfigError(`Invalid configuration:\n${problems.join("\n")}`);
}

function originOf(url: string): string | null {
  return URL.canParse(url) ? new URL(url).origin : null;
}

/** The subset of the configuration the browser may see, built field by field. */
export function toPublicConfig(env: Env): PublicConfig {
  const oldBaseOrigin = originOf(env.PUBLIC_OLD_BASE_URL);
  return {
    siteName: env.PUBLIC_SITE_NAME,
    apiBaseUrl: env.PUBLIC_API_BASE_URL,
    oldBaseUrl: env.PUBLIC_OLD_BASE_URL,
    botCheckSiteKey: env.RECAPTCHA_SITE_KEY ?? null,
    tagManagerIds: env.GTM_IDS,
    supportEmail: env.PUBLIC_SUPPORT_EMAIL,
    allowedExternalOrigins: [
      ...new Set([...env.PUBLIC_ALLOWED_EXTERNAL_ORIGINS.map((url) => new URL(url).origin), ...(oldBaseOrigin ? [oldBaseOrigin] : [])]),
    ],
  };
}

/** Express's "trust proxy" accepts booleans, hop counts and address lists. */
export function trustProxySetting(value: string): boolean | number | string {
  if (value === "true") return true;
  if (value === "false") return false;
  return /^\d+$/.test(value) ? Number(value) : value;
}
