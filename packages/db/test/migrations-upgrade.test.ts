import { execFileSync } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import BetterSqlite3 from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { migrateDatabase } from "../src/index.js";

// An existing SQLite database, made by the previous release (every committed migration but the
// last, applied by Prisma's own CLI), upgraded by the current code: its data survives and the new
// migration's rules hold. PostgreSQL has a single migration so far: its "previous release" is an
// empty database (migrations.test.ts).

const require = createRequire(import.meta.url);
const packageRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const repoPrisma = path.resolve(packageRoot, "../../prisma");

/** A copy of the repository's Prisma layout with the newest migration left out. */
function previousRelease(): { config: string; cwd: string; last: string } {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "ratecard-previous-"));
  const migrations = fs
    .readdirSync(path.join(repoPrisma, "migrations"), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
  const last = migrations.at(-1)!;
  fs.mkdirSync(path.join(root, "prisma/migrations"), { recursive: true });
  fs.copyFileSync(path.join(repoPrisma, "schema.prisma"), path.join(root, "prisma/schema.prisma"));
  fs.copyFileSync(
    path.join(repoPrisma, "migrations/migration_lock.toml"),
    path.join(root, "prisma/migrations/migration_lock.toml"),
  );
  for (const name of migrations.slice(0, -1))
    fs.cpSync(
      path.join(repoPrisma, "migrations", name),
      path.join(root, "prisma/migrations", name),
      {
        recursive: true,
      },
    );
  // The package's own config, resolving its imports from the package's node_modules.
  const cwd = path.join(root, "packages/db");
  fs.mkdirSync(cwd, { recursive: true });
  fs.copyFileSync(path.join(packageRoot, "prisma.config.ts"), path.join(cwd, "prisma.config.ts"));
  fs.symlinkSync(path.join(packageRoot, "node_modules"), path.join(cwd, "node_modules"));
  return { config: path.join(cwd, "prisma.config.ts"), cwd, last };
}

describe("upgrading a SQLite database of the previous release", () => {
  it("applies only the new migration, keeps every row, and the new rules hold", async () => {
    const release = previousRelease();
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "ratecard-upgrade-")), "old.db");
    execFileSync(
      process.execPath,
      [require.resolve("prisma/build/index.js"), "migrate", "deploy", "--config", release.config],
      {
        cwd: release.cwd,
        env: { ...process.env, DATABASE_URL: `file:${file}`, CHECKPOINT_DISABLE: "1" },
        stdio: "pipe",
      },
    );
    const old = new BetterSqlite3(file);
    const applied = () =>
      old
        .prepare("SELECT migration_name FROM _prisma_migrations ORDER BY migration_name")
        .pluck()
        .all() as string[];
    expect(applied()).not.toContain(release.last);
    old.prepare("INSERT INTO hashmap_services (id, name) VALUES (?, ?)").run("s-1", "compute");
    old
      .prepare("INSERT INTO local_users (id, name, role, password_hash) VALUES (?, ?, ?, ?)")
      .run("u-1", "ops", "admin", "$argon2id$x");

    await migrateDatabase(`file:${file}`);

    expect(applied()).toContain(release.last);
    expect(old.prepare("SELECT name FROM hashmap_services").pluck().all()).toEqual(["compute"]);
    expect(old.prepare("SELECT name FROM local_users").pluck().all()).toEqual(["ops"]);
    // The newest migration's rule, on rows it did not see created: a change to an account moves
    // the accounts' generation.
    const generation = () =>
      old.prepare("SELECT generation FROM local_accounts_generation").pluck().get() as number;
    const before = generation();
    old.prepare("UPDATE local_users SET role = 'reader' WHERE id = 'u-1'").run();
    expect(generation()).toBe(before + 1);
    old.close();
  });
});
