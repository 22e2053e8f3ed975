import { afterAll, describe, expect, it } from "vitest";
import pg from "pg";
import BetterSqlite3 from "better-sqlite3";
import { DatabaseTooNewError, migrateDatabase, openDatabase, type Database } from "../src/index.js";
import {
  emptyDatabaseUrl,
  postgresAdminUrl,
  providers,
  type Provider,
} from "./support/databases.js";

// Migrations on every database: from empty, again without change, several migrators at once, and
// a database that a newer Ratecard migrated.

const opened: Database[] = [];
afterAll(async () => {
  await Promise.all(opened.map((database) => database.close()));
});

interface AppliedMigration {
  migration_name: string;
  checksum: string;
  finished_at: unknown;
}

async function appliedMigrations(provider: Provider, url: string): Promise<AppliedMigration[]> {
  const sql = `SELECT "migration_name", "checksum", "finished_at" FROM "_prisma_migrations" ORDER BY "migration_name"`;
  if (provider === "sqlite") {
    const db = new BetterSqlite3(url.slice("file:".length), { readonly: true });
    try {
      return db.prepare(sql).all() as AppliedMigration[];
    } finally {
      db.close();
    }
  }
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<AppliedMigration>(sql)).rows;
  } finally {
    await client.end();
  }
}

async function execute(provider: Provider, url: string, sql: string): Promise<void> {
  if (provider === "sqlite") {
    const db = new BetterSqlite3(url.slice("file:".length));
    try {
      db.exec(sql);
    } finally {
      db.close();
    }
    return;
  }
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

describe.each(providers)("on %s", (provider) => {
  it("migrate an empty database, then apply again without change", async () => {
    const url = await emptyDatabaseUrl(provider, "migrate");
    await migrateDatabase(url);
    const first = await appliedMigrations(provider, url);
    expect(first.length).toBeGreaterThan(0);
    expect(
      first.every((row) => row.finished_at !== null && /^[0-9a-f]{64}$/.test(row.checksum)),
    ).toBe(true);
    const database = await openDatabase({ url });
    opened.push(database);
    await database.prisma.service.create({ data: { name: "kept" } });
    await migrateDatabase(url);
    expect(await appliedMigrations(provider, url)).toEqual(first);
    expect(await database.prisma.service.count()).toBe(1);
  });

  it("apply each migration once when several migrators start together", async () => {
    const url = await emptyDatabaseUrl(provider, "concurrent");
    await Promise.all([migrateDatabase(url), migrateDatabase(url), migrateDatabase(url)]);
    const applied = await appliedMigrations(provider, url);
    const names = applied.map((row) => row.migration_name);
    expect(new Set(names).size).toBe(names.length);
    const database = await openDatabase({ url });
    opened.push(database);
    expect(await database.prisma.ratingModule.count()).toBe(3);
  });

  it("refuse a database that a newer Ratecard migrated", async () => {
    const url = await emptyDatabaseUrl(provider, "too-new");
    await migrateDatabase(url);
    await execute(
      provider,
      url,
      `INSERT INTO "_prisma_migrations" ("id", "checksum", "migration_name", "finished_at", "applied_steps_count")
       VALUES ('future', '${"0".repeat(64)}', '29991231000000_from_the_future', CURRENT_TIMESTAMP, 1)`,
    );
    const error = await migrateDatabase(url).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(DatabaseTooNewError);
    expect(String(error)).toMatch(/29991231000000_from_the_future.*newer version/);
  });
});

describe.runIf(postgresAdminUrl)("on postgresql", () => {
  it("keep Prisma's bookkeeping: the checksum is the migration file's SHA-256", async () => {
    const { createHash } = await import("node:crypto");
    const fs = await import("node:fs");
    const path = await import("node:path");
    const url = await emptyDatabaseUrl("postgresql", "checksum");
    await migrateDatabase(url);
    const dir = path.resolve(import.meta.dirname, "../../../prisma/postgresql/migrations");
    for (const row of await appliedMigrations("postgresql", url)) {
      const sql = fs.readFileSync(path.join(dir, row.migration_name, "migration.sql"));
      expect(row.checksum).toBe(createHash("sha256").update(sql).digest("hex"));
    }
  });

  it("say clearly when the server cannot be reached", async () => {
    await expect(
      migrateDatabase("postgresql://nobody:secret@127.0.0.1:1/ratecard"),
    ).rejects.toThrow(/Cannot reach PostgreSQL at postgresql:\/\/nobody:\*\*\*@127\.0\.0\.1:1/);
  });
});
