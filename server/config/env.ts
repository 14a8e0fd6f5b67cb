import ipaddr from "ipaddr.js";
import { z } from "zod";
import type { PublicConfig } from "../../shared/config/public-config";
import { SERVER_ROLES } from "../runtime/role";

const commaList = z
  .string()
  .default("")
  .transform((value) =>
    value
      .split(",")
      .map((item) => item.trim())
      .filter(Boolean),
  );

/**
 * A whole number written out in digits. z.coerce.number() would read an empty
 * variable as 0 (PORT= would bind a random port) and accept "1e3" or " 8 ".
 */
const wholeNumber = (min: number, max = Number.MAX_SAFE_INTEGER) =>
  z
    .string()
    .regex(/^\d+$/, "must be a whole number")
    .transform(Number)
    .pipe(z.number().min(min, `must be at least ${min}`).max(max, `must be at most ${max}`));

const decimal = (min: number, max: number) =>
  z
    .string()
    .regex(/^\d+(\.\d+)?$/, "must be a number")
    .transform(Number)
    .pipe(z.number().min(min, `must be at least ${min}`).max(max, `must be at most ${max}`));

/** The names Express's "trust proxy" accepts for address ranges, besides addresses and CIDR ranges. */
const PROXY_RANGE_NAMES = new Set(["loopback", "linklocal", "uniquelocal"]);

function isProxyAddress(item: string): boolean {
  if (PROXY_RANGE_NAMES.has(item)) return true;
  const [address = "", mask, ...rest] = item.split("/");
  // ipaddr.js also takes "10" or "33" for IPv4 addresses; an operator means dotted or colon notation.
  const isAddress = (text: string) => /[.:]/.test(text) && ipaddr.isValid(text);
  if (rest.length > 0 || !isAddress(address)) return false;
  if (mask === undefined) return true;
  const bits = ipaddr.parse(address).kind() === "ipv4" ? 32 : 128;
  return /^\d+$/.test(mask) ? Number(mask) <= bits : isAddress(mask);
}

/** true, false, a number of hops, or a comma-separated list of proxy addresses, ranges and range names. */
const trustProxy = z
  .string()
  .trim()
  .refine(
    (value) => value === "true" || value === "false" || /^\d+$/.test(value) || (value !== "" && value.split(",").every((item) => isProxyAddress(item.trim()))),
    { message: "must be true, false, a number of proxy hops, or proxy addresses/CIDR ranges (or loopback, linklocal, uniquelocal) separated by commas" },
  );

/** ipaddr.js range names (loopback, private, uniqueLocal, linkLocal, ...) or CIDR ranges, or "none". */
const metricsAllow = z
  .string()
  .trim()
  .transform((value) => (value === "none" ? [] : value.split(",").map((item) => item.trim())))
  .refine((items) => items.every((item) => METRICS_RANGE_NAMES.has(item) || isCidr(item)), {
    message: "must be none, or loopback, private, uniqueLocal, linkLocal or CIDR ranges separated by commas",
  });

const METRICS_RANGE_NAMES = new Set(["loopback", "private", "uniqueLocal", "linkLocal", "carrierGradeNat"]);

function isCidr(item: string): boolean {
  try {
    ipaddr.parseCIDR(item);
    return true;
  } catch {
    return false;
  }
}

/** A libpq-style connection URL; only the scheme is checked here, the driver reads the rest. */
const postgresUrl = z.string().refine((value) => /^postgres(ql)?:\/\//.test(value) && URL.canParse(value), {
  message: "must be a postgres:// or postgresql:// URL (postgres://user:password@host:5432/database)",
});

const baseUrl = z.string().refine((value) => value.startsWith("/") || URL.canParse(value), {
  message: "must be a path starting with / or an absolute URL",
});

/**
 * Every environment variable the server reads, with its default. The README's
 * configuration table mirrors this schema.
 */
export const envSchema = z
  .object({
    NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
    HOST: z.string().min(1).default("0.0.0.0"),
    PORT: wholeNumber(1, 65535).default(3000),
    DATABASE_PATH: z.string().min(1).default("./data/threat-radar.sqlite"),
    /** Set: the data lives in this PostgreSQL database, and DATABASE_PATH is not used. */
    DATABASE_URL: postgresUrl.optional(),
    /** Connections each web process opens to PostgreSQL at most. */
    DATABASE_POOL_SIZE: wholeNumber(1, 1000).default(10),
    /** all: serve and import (one node); web: serve only; worker: import only, answering /healthz and /readyz. */
    SERVER_ROLE: z.enum(SERVER_ROLES).default("all"),
    LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
    /** auto: pretty on a terminal, JSON lines otherwise (a file, a pipe, journald, a container log). */
    LOG_FORMAT: z.enum(["auto", "pretty", "json"]).default("auto"),
    /** Bearer token that opens /metrics from any address. */
    METRICS_TOKEN: z.string().min(16, "must be at least 16 characters").optional(),
    /** Address ranges that may read /metrics without the token ("none" for none). */
    METRICS_ALLOW: metricsAllow.default(["loopback", "private", "uniqueLocal"]),
    TRUST_PROXY: trustProxy.default("false"),
    SSR_ABORT_MS: wholeNumber(100, 120_000).default(10_000),
    DATABASE_READ_THREADS: wholeNumber(1, 64).optional(),
    QUERY_TIMEOUT_MS: wholeNumber(100, 120_000).default(10_000),
    SERVE_CONCURRENCY: wholeNumber(1, 1024).default(8),
    SERVE_QUEUE_MS: wholeNumber(10, 60_000).default(1_000),
    SERVE_QUEUE_MAX: wholeNumber(1, 100_000).default(1_000),
    PAGE_CACHE_MB: wholeNumber(0, 4_096).default(64),
    COMPRESSION_LEVEL: wholeNumber(1, 9).default(6),
    SHUTDOWN_GRACE_MS: wholeNumber(0, 120_000).default(10_000),
    RATE_LIMIT_WINDOW_MS: wholeNumber(1000).default(60_000),
    RATE_LIMIT_PAGES_MAX: wholeNumber(1).default(300),
    RATE_LIMIT_API_MAX: wholeNumber(1).default(600),
    RATE_LIMIT_LOOKUP_MAX: wholeNumber(1).default(30),
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
    RECAPTCHA_MIN_SCORE: decimal(0, 1).default(0.5),
    GTM_IDS: commaList.pipe(z.array(z.string().regex(/^GTM-[A-Z0-9]{4,12}$/, "must be ids like GTM-XXXXXXX"))),
  })
  .superRefine((env, ctx) => {
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
    allowedExternalOrigins: [...new Set([...env.PUBLIC_ALLOWED_EXTERNAL_ORIGINS.map((url) => new URL(url).origin), ...(oldBaseOrigin ? [oldBaseOrigin] : [])])],
  };
}

/** Express's "trust proxy" accepts booleans, hop counts and address lists. */
export function trustProxySetting(value: string): boolean | number | string {
  if (value === "true") return true;
  if (value === "false") return false;
  return /^\d+$/.test(value) ? Number(value) : value;
}
