import { z } from "zod";
import { isUrl } from "./download";
import { DEFAULT_READ_LIMITS } from "./run";
import { envKey, SOURCES, type SourceName } from "./source-catalogue";

export interface SourceConfig {
  enabled: boolean;
  intervalMinutes: number;
  /** Where to read from: SOURCE_<NAME>_URL when set, else the publisher's default. */
  locations: string[];
  overridden: boolean;
}

export interface PipelineConfig {
  /** Whether the server's scheduler runs imports at all. */
  syncEnabled: boolean;
  /** Reads every source from this directory (laid out like ../shared/data) instead of the network. */
  mirrorDir: string | null;
  /** Sent to NVD as the apiKey header: 50 instead of 5 requests per 30 s. */
  nvdApiKey: string | null;
  /** At most this many MISP feed events are read per import; the rest follow in the next runs. */
  mispEventsPerRun: number;
  sources: Record<SourceName, SourceConfig>;
}

export class PipelineConfigError extends Error {
  override name = "PipelineConfigError";
}

const flag = z
  .string()
  .trim()
  .toLowerCase()
  .refine((value) => ["true", "false", "1", "0", "yes", "no", "on", "off"].includes(value), {
    message: "must be true or false",
  })
  .transform((value) => ["true", "1", "yes", "on"].includes(value));

const minutes = z.coerce
  .number({ message: "must be a whole number of minutes" })
  .int("must be a whole number of minutes")
  .min(1, "must be at least 1 minute")
  .max(525_600, "must be at most a year");

const locationList = z
  .string()
  .transform((value) =>
    value
      .split(",")
      .map((item) => item.trim())
      .filter(Boolean),
  )
  .refine((items) => items.length > 0, { message: "must name at least one URL or path" })
  .refine((items) => items.every((item) => isUrl(item) || !/^[a-z][a-z0-9+.-]*:\/\//i.test(item)), {
    message: "must be http(s) URLs or local paths, separated by commas",
  });

const urlVar = (name: string) => `SOURCE_${envKey(name)}_URL`;
const enabledVar = (name: string) => `SOURCE_${envKey(name)}_ENABLED`;
const intervalVar = (name: string) => `SYNC_INTERVAL_${envKey(name)}_MINUTES`;

function schema() {
  const shape: Record<string, z.ZodType> = {
    SYNC_ENABLED: flag.optional(),
    SYNC_MIRROR_DIR: z.string().trim().min(1, "must be a directory path").optional(),
    NVD_API_KEY: z.string().trim().min(1, "must not be empty").optional(),
    SYNC_MISP_EVENTS_PER_RUN: z.coerce
      .number({ message: "must be a whole number of events" })
      .int("must be a whole number of events")
      .min(1, "must be at least 1")
      .max(1_000_000, "must be at most 1000000")
      .optional(),
  };
  for (const source of SOURCES) {
    shape[urlVar(source.name)] = locationList.optional();
    shape[enabledVar(source.name)] = flag.optional();
    shape[intervalVar(source.name)] = minutes.optional();
  }
  return z.object(shape);
}

const SOURCE_VARIABLE = /^(?:SOURCE_(.+)_(?:URL|ENABLED)|SYNC_INTERVAL_(.+)_MINUTES)$/;

/**
 * Validates the pipeline's environment variables: SYNC_ENABLED (default
 * true), SYNC_MIRROR_DIR, NVD_API_KEY, SYNC_MISP_EVENTS_PER_RUN (default
 * 1000), and per source SOURCE_<NAME>_URL (URLs
 * or local paths, comma-separated), SOURCE_<NAME>_ENABLED and
 * SYNC_INTERVAL_<NAME>_MINUTES, where <NAME> is the source name in upper case
 * with "_" for "-" (SOURCE_CISA_KEV_URL). A variable for a source that does
 * not exist is an error too, since it is almost always a typo. Throws a
 * PipelineConfigError naming every bad variable.
 */
export function loadPipelineConfig(env: Record<string, string | undefined> = process.env): PipelineConfig {
  const problems: string[] = [];
  const known = new Set(SOURCES.map((source) => envKey(source.name)));
  for (const name of Object.keys(env)) {
    const match = SOURCE_VARIABLE.exec(name);
    const key = match?.[1] ?? match?.[2];
    if (key && !known.has(key)) problems.push(`  ${name}: no source is called "${key}" (known: ${[...known].join(", ")})`);
  }
  const result = schema().safeParse(env);
  if (!result.success) {
    for (const issue of result.error.issues) problems.push(`  ${issue.path.join(".")}: ${issue.message}`);
  }
  if (problems.length > 0 || !result.success) {
    throw new PipelineConfigError(`Invalid sync configuration:\n${problems.join("\n")}`);
  }
  const values = result.data as Record<string, unknown>;
  const sources = Object.fromEntries(
    SOURCES.map((source) => {
      const override = values[urlVar(source.name)] as string[] | undefined;
      const config: SourceConfig = {
        enabled: (values[enabledVar(source.name)] as boolean | undefined) ?? source.enabledByDefault,
        intervalMinutes: (values[intervalVar(source.name)] as number | undefined) ?? source.intervalMinutes,
        locations: override ?? [...source.defaultLocations],
        overridden: override !== undefined,
      };
      return [source.name, config];
    }),
  ) as Record<SourceName, SourceConfig>;
  return {
    syncEnabled: (values.SYNC_ENABLED as boolean | undefined) ?? true,
    mirrorDir: (values.SYNC_MIRROR_DIR as string | undefined) ?? null,
    nvdApiKey: (values.NVD_API_KEY as string | undefined) ?? null,
    mispEventsPerRun: (values.SYNC_MISP_EVENTS_PER_RUN as number | undefined) ?? DEFAULT_READ_LIMITS.mispEventsPerRun,
    sources,
  };
}
