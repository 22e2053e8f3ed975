import path from "node:path";
import { loadMetricsFile, MetricsFileError, type MetricsConfig } from "./metrics.js";

/** Ratecard's configuration: environment variables, read once at start. See docs/configuration.md. */
export interface Config {
  host: string;
  port: number;
  databaseUrl: string;
  logLevel: string;
  /** Largest accepted request body; larger ones get a 413. */
  bodyLimitBytes: number;
  /** How long in-flight requests may take to finish after SIGTERM. */
  shutdownTimeoutMs: number;
  /** The built admin console, served at `/` when present. */
  consoleDir: string;
  /** CloudKitty's collector configuration (`metrics.yml`) served on /v1/info. */
  metricsFile: string | undefined;
  /** That file, loaded once at start; null without one. */
  metrics: MetricsConfig | null;
}

/** A setting the server cannot start with: reported as one clear line, without a stack trace. */
export class ConfigError extends Error {}

function integer(
  env: NodeJS.ProcessEnv,
  name: string,
  fallback: number,
  min: number,
  max: number,
): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  // Number() would also take "1e3", "0x50" and " 80 ": plain digits only.
  const value = /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  }
  return value;
}

export function readConfig(env: NodeJS.ProcessEnv, appRoot: string): Config {
  return {
    host: env.HOST || "127.0.0.1",
    port: integer(env, "PORT", 8889, 0, 65535),
    databaseUrl: env.DATABASE_URL || "file:./data/ratecard.db",
    logLevel: env.LOG_LEVEL || "info",
    bodyLimitBytes: integer(env, "BODY_LIMIT_BYTES", 4 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
    shutdownTimeoutMs: integer(env, "SHUTDOWN_TIMEOUT_MS", 10_000, 0, 600_000),
    consoleDir: env.CONSOLE_DIR || path.resolve(appRoot, "../web/dist"),
    metricsFile: env.METRICS_FILE || undefined,
    metrics: readMetrics(env.METRICS_FILE || undefined),
  };
}

function readMetrics(file: string | undefined): MetricsConfig | null {
  try {
    return loadMetricsFile(file);
  } catch (error) {
    if (error instanceof MetricsFileError) throw new ConfigError(error.message);
    throw error;
  }
}
