import type { Server } from "node:http";
import path from "node:path";
import { fileURLToPath } from "node:url";
import {
  DatabaseTooNewError,
  migrateDatabase,
  openDatabase,
  redactUrl,
  type Database,
} from "@ratecard/db";
import { DEFAULT_RULES, createPolicy, loadPolicyFile, PolicyFileError } from "@ratecard/policy";
import { createApp } from "./app.js";
import { ConfigError, readConfig, type Config } from "./config.js";
import { createIdentity } from "./identity/strategies.js";
import { createLogger } from "./log.js";

const appRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const VERSION = "0.1.0";

async function main(): Promise<void> {
  const config = readConfig(process.env, appRoot);
  const logger = createLogger(config.logLevel);
  try {
    await migrateDatabase(config.databaseUrl);
  } catch (error) {
    if (error instanceof DatabaseTooNewError) throw new ConfigError(error.message);
    // PostgreSQL refusing or missing is the operator's to fix: say so in one line.
    const code = (error as { code?: unknown }).code;
    if (
      typeof code === "string" &&
      /^(ECONNREFUSED|ENOTFOUND|ETIMEDOUT|EAI_AGAIN|28P01|3D000)$/.test(code)
    )
      throw new ConfigError(
        `cannot migrate ${redactUrl(config.databaseUrl)}: ${error instanceof Error ? error.message : code}`,
      );
    throw error;
  }
  const policy = readPolicy(config);
  let database: Database;
  try {
    database = await openDatabase({
      url: config.databaseUrl,
      durability: config.sqliteSynchronous,
      ...config.postgres,
    });
  } catch (error) {
    // A database that cannot be reached at start is a deployment problem to state, not a crash.
    throw new ConfigError(error instanceof Error ? error.message : String(error));
  }
  const identity = await createIdentity(config.auth, database, logger);
  for (const notice of identity.notices) logger.warn(notice);
  const server = createApp({ config, database, logger, version: VERSION, identity, policy });

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, "shutting down: finishing in-flight requests");
    const force = setTimeout(() => {
      logger.warn("shutdown timeout: closing remaining connections");
      server.closeAllConnections();
    }, config.shutdownTimeoutMs);
    force.unref();
    server.close(() => {
      Promise.resolve(identity.authenticator.close?.())
        .then(() => database.close())
        .then(() => {
          logger.info("stopped");
          process.exit(0);
        })
        .catch((error: unknown) => {
          logger.error({ err: error }, "closing the database failed");
          process.exit(1);
        });
    });
    server.closeIdleConnections();
  };
  process.on("SIGTERM", () => stop("SIGTERM"));
  process.on("SIGINT", () => stop("SIGINT"));

  await listen(server, config);
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : config.port;
  logger.info(
    {
      url: `http://${config.host}:${port}`,
      database: database.url,
      journal_mode: database.settings.journalMode,
      synchronous: database.settings.synchronous,
      auth: config.auth.strategy,
    },
    `Ratecard listening on http://${config.host}:${port}`,
  );
}

function readPolicy(config: Config) {
  if (!config.policyFile) return createPolicy(DEFAULT_RULES);
  try {
    return loadPolicyFile(config.policyFile, DEFAULT_RULES);
  } catch (error) {
    if (error instanceof PolicyFileError) throw new ConfigError(error.message);
    throw error;
  }
}

function listen(server: Server, config: Config): Promise<void> {
  return new Promise((resolve, reject) => {
    const fail = (error: NodeJS.ErrnoException) => {
      const where = `${config.host}:${config.port}`;
      if (error.code === "EADDRINUSE")
        reject(new ConfigError(`cannot listen on ${where}: the address is already in use`));
      else if (error.code === "EACCES")
        reject(new ConfigError(`cannot listen on ${where}: permission denied`));
      else reject(error);
    };
    server.once("error", fail);
    server.listen(config.port, config.host, () => {
      server.off("error", fail);
      resolve();
    });
  });
}

main().catch((error: unknown) => {
  const message = error instanceof Error ? error.message : String(error);
  console.error(`Ratecard cannot start: ${message}`);
  if (!(error instanceof ConfigError)) console.error(error);
  process.exit(1);
});
