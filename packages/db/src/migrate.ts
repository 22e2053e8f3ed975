import { execFile } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import BetterSqlite3 from "better-sqlite3";
import { databaseProvider, resolveDatabaseUrl, type Database } from "./database.js";

const run = promisify(execFile);
const require = createRequire(import.meta.url);
const packageRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const migrationsDir = path.resolve(packageRoot, "../../prisma/migrations");
const postgresMigrationsDir = path.resolve(packageRoot, "../../prisma/postgresql/migrations");

/** The committed migrations, by folder name (Prisma applies them in this order). */
function committedMigrations(directory = migrationsDir): string[] {
  return fs
    .readdirSync(directory, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
}

/** The migrations Prisma recorded as applied, or null when the database has no record yet. */
function appliedMigrations(file: string): string[] | null {
  if (!fs.existsSync(file)) return null;
  const db = new BetterSqlite3(file, { readonly: true, fileMustExist: true });
  try {
    const table = db
      .prepare(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name = '_prisma_migrations'",
      )
      .get();
    if (!table) return null;
    return db
      .prepare(
        "SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL",
      )
      .pluck()
      .all() as string[];
  } finally {
    db.close();
  }
}

/** The database was migrated by a newer Ratecard: this one must not run on it. */
export class DatabaseTooNewError extends Error {}

/**
 * Applies the committed migrations of the database's provider to it. Idempotent, and safe for
 * several processes at once. A database that has migrations this code does not know is refused
 * with DatabaseTooNewError.
 *
 * SQLite (prisma/migrations): creates the file if it does not exist, and runs Prisma's own
 * `migrate deploy`. PostgreSQL (prisma/postgresql/migrations): see migrate-postgresql.ts.
 */
export async function migrateDatabase(databaseUrl: string): Promise<void> {
  if (databaseProvider(databaseUrl) === "postgresql") {
    const { migratePostgres } = await import("./migrate-postgresql.js");
    await migratePostgres(databaseUrl, postgresMigrationsDir);
    return;
  }
  const url = resolveDatabaseUrl(databaseUrl);
  const file = url.slice("file:".length);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  // Starting on an up-to-date database needs no Prisma CLI (about a second of start-up).
  const committed = committedMigrations();
  const applied = appliedMigrations(file);
  if (applied) {
    const unknown = applied.filter((name) => !committed.includes(name));
    if (unknown.length > 0) {
      throw new DatabaseTooNewError(
        `the database ${file} has migrations this Ratecard does not know (${unknown.join(", ")}): ` +
          "it was upgraded by a newer version; run that version or restore a backup",
      );
    }
    if (committed.every((name) => applied.includes(name))) return;
  }
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

const committedByDirectory = new Map<string, string[]>();

/**
 * How an open database stands against this code's migrations: `pending` ones it lacks (this
 * instance should not serve), and `unknown` ones a newer Ratecard applied (a rolling upgrade under
 * way: the additive migrations so far leave this version working). For readiness checks.
 */
export async function migrationState(
  database: Database,
): Promise<{ pending: string[]; unknown: string[] }> {
  const directory = database.provider === "postgresql" ? postgresMigrationsDir : migrationsDir;
  // The committed migrations are this code's: read once (load balancers ask every few seconds).
  let committed = committedByDirectory.get(directory);
  if (!committed) committedByDirectory.set(directory, (committed = committedMigrations(directory)));
  const rows = await database.prisma.$queryRawUnsafe<{ migration_name: string }[]>(
    'SELECT "migration_name" FROM "_prisma_migrations" ' +
      'WHERE "finished_at" IS NOT NULL AND "rolled_back_at" IS NULL',
  );
  const applied = new Set(rows.map((row) => row.migration_name));
  return {
    pending: committed.filter((name) => !applied.has(name)),
    unknown: [...applied].filter((name) => !committed.includes(name)).sort(),
  };
}
