import path from "node:path";
import { loadMetricsFile, MetricsFileError, type MetricsConfig } from "./metrics.js";

/** Ratecard's configuration: environment variables, read once at start (the README lists them). */
export interface Config {
  host: string;
  port: number;
  databaseUrl: string;
  /** SQLite's durability: `full` survives power loss, `normal` only a process crash. */
  sqliteSynchronous: "full" | "normal";
  /** PostgreSQL: connections per instance, and how long a statement or a connection may take. */
  postgres: { poolSize: number; statementTimeoutMs: number; connectTimeoutMs: number };
  logLevel: string;
  /** Bytes of GET answers the read snapshot keeps. */
  snapshotMaxBytes: number;
  /** Largest accepted request body; larger ones get a 413. */
  bodyLimitBytes: number;
  /** How long in-flight requests may take to finish after SIGTERM. */
  shutdownTimeoutMs: number;
  /**
   * Where Ratecard keeps its own files (the first admin's one-time password, the generated key of
   * target secrets): DATA_DIR, or the SQLite file's directory, or ./data.
   */
  dataDir: string;
  /** RATECARD_SECRET_KEY: the key of CloudKitty targets' secrets; else one is kept in dataDir. */
  targetSecretKey: Buffer | undefined;
  /** How long an idle keep-alive connection stays open: longer than any proxy's idle timeout. */
  keepAliveTimeoutMs: number;
  /** The built admin console, served at `/` when present. */
  consoleDir: string;
  auth: AuthConfig;
  /** oslo.policy-style overrides of the policy defaults (CloudKitty's `policy.yaml`). */
  policyFile: string | undefined;
  /** Proxies whose X-Forwarded-For/-Proto/-Host are believed (proxy-addr trust list). */
  trustedProxies: string[];
  /** Failed sign-ins or token checks a client may make per minute before 429. */
  loginAttemptsPerMinute: number;
  authFailuresPerMinute: number;
  /** CloudKitty's collector configuration (`metrics.yml`) served on /v1/info. */
  metricsFile: string | undefined;
  /** That file, loaded once at start; null without one. */
  metrics: MetricsConfig | null;
  /**
   * RULE_UPDATE_MODE: `in-place` (CloudKitty 17: a rule in force may be edited) or `strict`
   * (CloudKitty master: a rule in force may only be given an end). See docs/lifecycle.md.
   */
  ruleUpdateMode: "in-place" | "strict";
  /** CLOUDKITTY_REQUEST_TIMEOUT_SECONDS: the deadline of each request to a CloudKitty target. */
  cloudKittyRequestTimeoutMs: number;
  /**
   * TARGET_APPLY_LEASE_SECONDS: how long a target's apply lease lasts unless renewed (every quarter
   * of it while the apply runs): how long a target stays locked after its applying instance died.
   */
  targetApplyLeaseMs: number;
}

export type AuthStrategy = "noauth" | "local" | "keystone";

export type AuthConfig =
  | { strategy: "noauth"; explicit: boolean }
  | {
      strategy: "local";
      /** The first admin's password; without it a one-time password is written to dataDir. */
      adminPassword: string | undefined;
      dataDir: string;
      sessionTtlMs: number;
    }
  | { strategy: "keystone"; keystone: KeystoneConfig };

export interface KeystoneConfig {
  url: string;
  username: string | undefined;
  password: string | undefined;
  projectName: string | undefined;
  userDomainName: string;
  projectDomainName: string;
  applicationCredentialId: string | undefined;
  applicationCredentialSecret: string | undefined;
  cacheTtlMs: number;
  cacheMaxEntries: number;
  timeoutMs: number;
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

function oneOf<T extends string>(
  env: NodeJS.ProcessEnv,
  name: string,
  allowed: readonly T[],
  fallback: T,
): T {
  const raw = env[name]?.toLowerCase();
  if (raw === undefined || raw === "") return fallback;
  if (!(allowed as readonly string[]).includes(raw))
    throw new ConfigError(`${name} must be one of ${allowed.join(", ")}, got "${env[name]}"`);
  return raw as T;
}

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|localhost|::ffff:127\.\d+\.\d+\.\d+)$/i;

export function isLoopback(host: string): boolean {
  return LOOPBACK.test(host.replace(/^\[|\]$/g, ""));
}

function required(env: NodeJS.ProcessEnv, name: string, why: string): string {
  const value = env[name];
  if (!value) throw new ConfigError(`${name} must be set ${why}`);
  return value;
}

function readKeystone(env: NodeJS.ProcessEnv): KeystoneConfig {
  const why = "when AUTH_STRATEGY=keystone";
  const url = required(env, "KEYSTONE_URL", why);
  if (!/^https?:\/\/[^/]/.test(url))
    throw new ConfigError(`KEYSTONE_URL must be an http(s) URL, got "${url}"`);
  const applicationCredentialId = env.KEYSTONE_APPLICATION_CREDENTIAL_ID || undefined;
  const applicationCredentialSecret = env.KEYSTONE_APPLICATION_CREDENTIAL_SECRET || undefined;
  if (applicationCredentialId || applicationCredentialSecret) {
    if (!applicationCredentialId || !applicationCredentialSecret)
      throw new ConfigError(
        "KEYSTONE_APPLICATION_CREDENTIAL_ID and KEYSTONE_APPLICATION_CREDENTIAL_SECRET must be set together",
      );
  } else {
    required(env, "KEYSTONE_USERNAME", `${why} (or an application credential)`);
    required(env, "KEYSTONE_PASSWORD", `${why} (or an application credential)`);
    required(env, "KEYSTONE_PROJECT_NAME", `${why} (or an application credential)`);
  }
  return {
    url: url.replace(/\/+$/, ""),
    username: env.KEYSTONE_USERNAME || undefined,
    password: env.KEYSTONE_PASSWORD || undefined,
    projectName: env.KEYSTONE_PROJECT_NAME || undefined,
    userDomainName: env.KEYSTONE_USER_DOMAIN_NAME || "Default",
    projectDomainName: env.KEYSTONE_PROJECT_DOMAIN_NAME || "Default",
    applicationCredentialId,
    applicationCredentialSecret,
    cacheTtlMs: integer(env, "TOKEN_CACHE_TTL_SECONDS", 300, 0, 86_400) * 1000,
    cacheMaxEntries: integer(env, "TOKEN_CACHE_SIZE", 10_000, 1, 10_000_000),
    timeoutMs: integer(env, "KEYSTONE_TIMEOUT_MS", 5_000, 100, 120_000),
  };
}

function dataDirOf(env: NodeJS.ProcessEnv, databaseUrl: string): string {
  return path.resolve(
    env.DATA_DIR ||
      (databaseUrl.startsWith("file:") ? path.dirname(databaseUrl.slice("file:".length)) : "data"),
  );
}

function secretKey(env: NodeJS.ProcessEnv): Buffer | undefined {
  const configured = env.RATECARD_SECRET_KEY?.trim();
  if (!configured) return undefined;
  const key = Buffer.from(configured, "base64");
  // Buffer.from ignores what is not base64: a key that does not round-trip was mistyped.
  if (key.length !== 32 || key.toString("base64") !== configured)
    throw new ConfigError(
      "RATECARD_SECRET_KEY must be 32 bytes in base64 (make one with: openssl rand -base64 32)",
    );
  return key;
}

function readAuth(env: NodeJS.ProcessEnv, host: string, databaseUrl: string): AuthConfig {
  const strategy = env.AUTH_STRATEGY;
  switch (strategy) {
    case "keystone":
      return { strategy, keystone: readKeystone(env) };
    case "local":
      return {
        strategy,
        adminPassword: env.RATECARD_ADMIN_PASSWORD || undefined,
        dataDir: dataDirOf(env, databaseUrl),
        sessionTtlMs: integer(env, "SESSION_TTL_SECONDS", 12 * 3600, 1, 30 * 86_400) * 1000,
      };
    case "noauth":
      return { strategy, explicit: true };
    case undefined:
    case "":
      if (isLoopback(host)) return { strategy: "noauth", explicit: false };
      throw new ConfigError(
        `refusing to listen on ${host} without authentication: set AUTH_STRATEGY=keystone ` +
          `(with KEYSTONE_URL, KEYSTONE_USERNAME, KEYSTONE_PASSWORD, KEYSTONE_PROJECT_NAME) or ` +
          `AUTH_STRATEGY=local (with RATECARD_ADMIN_PASSWORD), or HOST=127.0.0.1`,
      );
    default:
      throw new ConfigError(`AUTH_STRATEGY must be keystone, local or noauth, got "${strategy}"`);
  }
}

export function readConfig(env: NodeJS.ProcessEnv, appRoot: string): Config {
  const host = env.HOST || "127.0.0.1";
  const databaseUrl = env.DATABASE_URL || "file:./data/ratecard.db";
  return {
    host,
    port: integer(env, "PORT", 8889, 0, 65535),
    databaseUrl,
    sqliteSynchronous: oneOf(env, "SQLITE_SYNCHRONOUS", ["full", "normal"], "full"),
    postgres: {
      poolSize: integer(env, "DATABASE_POOL_SIZE", 10, 1, 1_000),
      statementTimeoutMs: integer(env, "DATABASE_STATEMENT_TIMEOUT_MS", 10_000, 0, 3_600_000),
      connectTimeoutMs: integer(env, "DATABASE_CONNECT_TIMEOUT_MS", 5_000, 100, 600_000),
    },
    logLevel: env.LOG_LEVEL || "info",
    // 16 MB holds the largest answer (all 10,000 mappings of a field, 2.3 MB) six times over, or
    // thousands of small ones, and keeps the server within its 150 MiB budget however many distinct
    // URLs are read (answers of an older version stay until evicted).
    snapshotMaxBytes: integer(env, "READ_CACHE_MB", 16, 0, 64 * 1024) * 1024 * 1024,
    bodyLimitBytes: integer(env, "BODY_LIMIT_BYTES", 4 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
    shutdownTimeoutMs: integer(env, "SHUTDOWN_TIMEOUT_MS", 10_000, 0, 600_000),
    // A client (or a proxy) that sends on a keep-alive connection just as the server closes it
    // for idleness gets a reset; Node's 5 s made that a regular occurrence for any client pausing
    // a few seconds. 65 s outlasts the usual proxy idle timeouts (HAProxy's sample here: 60 s), so
    // it is the proxy that closes first, which it can do safely.
    dataDir: dataDirOf(env, databaseUrl),
    targetSecretKey: secretKey(env),
    keepAliveTimeoutMs: integer(env, "KEEP_ALIVE_TIMEOUT_SECONDS", 65, 1, 3_600) * 1000,
    consoleDir: env.CONSOLE_DIR || path.resolve(appRoot, "../web/dist"),
    auth: readAuth(env, host, databaseUrl),
    policyFile: env.POLICY_FILE || undefined,
    trustedProxies: (env.TRUSTED_PROXIES ?? "")
      .split(",")
      .map((entry) => entry.trim())
      .filter(Boolean),
    loginAttemptsPerMinute: integer(env, "LOGIN_ATTEMPTS_PER_MINUTE", 10, 1, 100_000),
    authFailuresPerMinute: integer(env, "AUTH_FAILURES_PER_MINUTE", 60, 1, 1_000_000),
    metricsFile: env.METRICS_FILE || undefined,
    metrics: readMetrics(env.METRICS_FILE || undefined),
    ruleUpdateMode: oneOf(env, "RULE_UPDATE_MODE", ["in-place", "strict"], "in-place"),
    cloudKittyRequestTimeoutMs:
      integer(env, "CLOUDKITTY_REQUEST_TIMEOUT_SECONDS", 60, 1, 3_600) * 1000,
    targetApplyLeaseMs: integer(env, "TARGET_APPLY_LEASE_SECONDS", 60, 2, 3_600) * 1000,
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
