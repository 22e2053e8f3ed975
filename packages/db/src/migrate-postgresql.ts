import { createHash, randomUUID } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import pg from "pg";
import { redactUrl } from "./database.js";
import { DatabaseTooNewError } from "./migrate.js";

// Prisma 6's `migrate deploy` cannot run on PostgreSQL through the pg driver adapter (it fails to
// read PostgreSQL's `name` type, prisma/orm#27403), and without the adapter it downloads a native
// engine. So this applies the committed migrations itself, keeping Prisma's own bookkeeping: the
// `_prisma_migrations` table with each file's SHA-256 (`prisma migrate status` agrees with it),
// under the advisory lock Prisma's migrate takes, so that instances starting together, a migration
// job and Prisma's CLI apply each migration once. Each migration runs in one transaction: one that
// fails leaves nothing behind.

/** The key of Prisma's own migration lock (schema-engine's advisory lock). */
const MIGRATION_LOCK_KEY = 72707369;

/** Prisma's table, as `migrate deploy` creates it on PostgreSQL. */
const CREATE_MIGRATIONS_TABLE = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id"                    VARCHAR(36) PRIMARY KEY NOT NULL,
    "checksum"              VARCHAR(64) NOT NULL,
    "finished_at"           TIMESTAMPTZ,
    "migration_name"        VARCHAR(255) NOT NULL,
    "logs"                  TEXT,
    "rolled_back_at"        TIMESTAMPTZ,
    "started_at"            TIMESTAMPTZ NOT NULL DEFAULT now(),
    "applied_steps_count"   INTEGER NOT NULL DEFAULT 0
)`;

interface Migration {
  name: string;
  sql: string;
  checksum: string;
}

function committedMigrations(migrationsDir: string): Migration[] {
  return fs
    .readdirSync(migrationsDir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort()
    .map((name) => {
      const sql = fs.readFileSync(path.join(migrationsDir, name, "migration.sql"), "utf8");
      return { name, sql, checksum: createHash("sha256").update(sql).digest("hex") };
    });
}

/** What migratePostgres did: the migrations it applied (none when the database was current). */
export interface MigrationReport {
  applied: string[];
}

export async function migratePostgres(
  url: string,
  migrationsDir: string,
  options: { connectTimeoutMs?: number } = {},
): Promise<MigrationReport> {
  const migrations = committedMigrations(migrationsDir);
  const client = new pg.Client({
    connectionString: url,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 10_000,
    application_name: "ratecard-migrate",
  });
  try {
    await client.connect();
  } catch (error) {
    throw new Error(`Cannot reach PostgreSQL at ${redactUrl(url)}: ${String(error)}`, {
      cause: error,
    });
  }
  const applied: string[] = [];
  try {
    // A session lock: held across the per-migration transactions, released by unlock or by the
    // connection's end (a migrator that dies frees it).
    await client.query("SELECT pg_advisory_lock($1)", [MIGRATION_LOCK_KEY]);
    await client.query(CREATE_MIGRATIONS_TABLE);
    const { rows } = await client.query<{
      migration_name: string;
      finished_at: Date | null;
    }>(
      `SELECT "migration_name", "finished_at" FROM "_prisma_migrations" WHERE "rolled_back_at" IS NULL`,
    );
    const failed = rows.filter((row) => row.finished_at === null).map((row) => row.migration_name);
    if (failed.length > 0) {
      throw new Error(
        `the database ${redactUrl(url)} has migrations that started and did not finish ` +
          `(${failed.join(", ")}): resolve them (prisma migrate resolve) before starting`,
      );
    }
    const done = new Set(rows.map((row) => row.migration_name));
    const known = new Set(migrations.map((migration) => migration.name));
    const unknown = [...done].filter((name) => !known.has(name));
    if (unknown.length > 0) {
      throw new DatabaseTooNewError(
        `the database ${redactUrl(url)} has migrations this Ratecard does not know ` +
          `(${unknown.join(", ")}): it was upgraded by a newer version; run that version or restore a backup`,
      );
    }
    for (const migration of migrations) {
      if (done.has(migration.name)) continue;
      await client.query("BEGIN");
      try {
        const id = randomUUID();
        await client.query(
          `INSERT INTO "_prisma_migrations" ("id", "checksum", "migration_name", "started_at", "applied_steps_count")
           VALUES ($1, $2, $3, now(), 0)`,
          [id, migration.checksum, migration.name],
        );
        await client.query(migration.sql);
        await client.query(
          `UPDATE "_prisma_migrations" SET "finished_at" = now(), "applied_steps_count" = 1 WHERE "id" = $1`,
          [id],
        );
        await client.query("COMMIT");
      } catch (error) {
        await client.query("ROLLBACK").catch(() => {});
        throw new Error(
          `Migration ${migration.name} failed on ${redactUrl(url)}: ${String(error)}`,
          {
            cause: error,
          },
        );
      }
      applied.push(migration.name);
    }
  } finally {
    await client.end().catch(() => {});
  }
  return { applied };
}
