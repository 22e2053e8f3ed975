import { execFile } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { resolveDatabaseUrl } from "./database.js";

const run = promisify(execFile);
const require = createRequire(import.meta.url);
const packageRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/**
 * Applies the committed migrations (prisma/migrations) to the database, creating the file if it
 * does not exist. Idempotent. Runs Prisma's own `migrate deploy` so the `_prisma_migrations`
 * bookkeeping stays exactly Prisma's.
 */
export async function migrateDatabase(databaseUrl: string): Promise<void> {
  const url = resolveDatabaseUrl(databaseUrl);
  fs.mkdirSync(path.dirname(url.slice("file:".length)), { recursive: true });
  const prismaCli = require.resolve("prisma/build/index.js");
  try {
    await run(
      process.execPath,
      [prismaCli, "migrate", "deploy", "--config", path.join(packageRoot, "prisma.config.ts")],
      {
        cwd: packageRoot,
        env: {
          ...process.env,
          DATABASE_URL: url,
          CHECKPOINT_DISABLE: "1",
          PRISMA_HIDE_UPDATE_MESSAGE: "1",
        },
      },
    );
  } catch (error) {
    const { stdout = "", stderr = "" } = error as { stdout?: string; stderr?: string };
    throw new Error(`Database migration failed for ${url}:\n${stdout}${stderr}`, { cause: error });
  }
}
