import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import BetterSqlite3 from "better-sqlite3";
import { describe, expect, it } from "vitest";

// The rule lifecycle migration (docs/lifecycle.md) on rules that existed before it, on SQLite: each
// takes effect from its creation, is the 'migration's (as CloudKitty's own migration writes), gets
// its id as its name, and the identity indexes then hold only among rules not deleted.

const migrations = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  "../../../prisma/migrations",
);
const LIFECYCLE = "20261125210000_rule_lifecycle";
const COST = "1.0000000000000000000000000000";

function databaseBefore(): BetterSqlite3.Database {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "ratecard-lifecycle-")), "r.db");
  const db = new BetterSqlite3(file);
  const earlier = fs
    .readdirSync(migrations, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && entry.name < LIFECYCLE)
    .map((entry) => entry.name)
    .sort();
  for (const name of earlier)
    db.exec(fs.readFileSync(path.join(migrations, name, "migration.sql"), "utf8"));
  return db;
}

describe(`migration ${LIFECYCLE} on SQLite`, () => {
  it("starts existing rules at their creation, by 'migration', named after their id", () => {
    const db = databaseBefore();
    const created = "2026-11-01T10:00:00.000+00:00";
    db.prepare("INSERT INTO hashmap_services (id, name) VALUES ('s', 'compute')").run();
    db.prepare(
      `INSERT INTO hashmap_mappings (id, value, type, cost, service_id, created_at, updated_at)
       VALUES ('aaaaaaaa-0000-4000-8000-000000000001', '', 'flat', ?, 's', ?, ?)`,
    ).run(COST, created, created);
    db.prepare(
      `INSERT INTO hashmap_thresholds (id, level, type, cost, service_id, created_at, updated_at)
       VALUES ('aaaaaaaa-0000-4000-8000-000000000002', '1.00000000', 'flat', ?, 's', ?, ?)`,
    ).run(COST, created, created);
    db.prepare(
      `INSERT INTO pyscripts_scripts (id, name, data, checksum, created_at, updated_at)
       VALUES ('aaaaaaaa-0000-4000-8000-000000000003', 'policy', '', 'x', ?, ?)`,
    ).run(created, created);

    db.exec(fs.readFileSync(path.join(migrations, LIFECYCLE, "migration.sql"), "utf8"));

    const lifecycle = (table: string) =>
      db
        .prepare(
          `SELECT start, "end", description, created_by, updated_by, deleted, deleted_by
           FROM ${table}`,
        )
        .get();
    for (const table of ["hashmap_mappings", "hashmap_thresholds", "pyscripts_scripts"])
      expect(lifecycle(table), table).toEqual({
        start: created,
        end: null,
        description: null,
        created_by: "migration",
        updated_by: null,
        deleted: null,
        deleted_by: null,
      });
    expect(db.prepare("SELECT name FROM hashmap_mappings").pluck().get()).toBe(
      "aaaaaaaa000040008000000000000001",
    );

    // The identity is held by rules not deleted only: a soft-deleted rule frees it.
    const identical = db.prepare(
      `INSERT INTO hashmap_mappings (id, value, type, cost, service_id, created_at, updated_at)
       VALUES (?, '', 'flat', ?, 's', ?, ?)`,
    );
    expect(() => identical.run("second", COST, created, created)).toThrow(/UNIQUE/);
    db.prepare(`UPDATE hashmap_mappings SET deleted = ?, deleted_by = 'ops'`).run(created);
    identical.run("second", COST, created, created);
    const script = db.prepare(
      `INSERT INTO pyscripts_scripts (id, name, data, checksum, created_at, updated_at)
       VALUES (?, 'policy', '', 'x', ?, ?)`,
    );
    expect(() => script.run("again", created, created)).toThrow(/UNIQUE/);
    db.prepare(`UPDATE pyscripts_scripts SET deleted = ?`).run(created);
    script.run("again", created, created);
    db.close();
  });
});
