import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import BetterSqlite3 from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  insertMapping,
  insertThreshold,
  isForeignKeyViolation,
  isUniqueViolation,
  migrateDatabase,
  openDatabase,
  type Database,
  type PrismaClient,
} from "../src/index.js";
import { flatFieldMapping, seedFlavorField } from "./support/rules.js";

// The prepared rule creates (rule-writes.ts) against a real file: the rows Prisma reads back, the
// errors the domain maps, and waiting for a write lock someone else holds without blocking.

const COST = "1.5000000000000000000000000000";
let database: Database;
let file: string;
let serviceId: string;
let fieldId: string;

beforeAll(async () => {
  file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "ratecard-rule-writes-")), "test.db");
  await migrateDatabase(`file:${file}`);
  database = await openDatabase({ url: `file:${file}` });
  ({ serviceId, fieldId } = await seedFlavorField(database.prisma));
});
afterAll(async () => {
  await database.close();
});

const mapping = (value: string) => flatFieldMapping(fieldId, value, COST);

async function refusal(write: Promise<unknown>): Promise<unknown> {
  return write.then(
    () => {
      throw new Error("the write should have been refused");
    },
    (error: unknown) => error,
  );
}

describe("prepared rule creates", () => {
  it("return the row exactly as Prisma reads it back", async () => {
    const row = await insertMapping(database.prisma, { ...mapping("m1"), tenantId: "t" });
    expect(await database.prisma.mapping.findUnique({ where: { id: row.id } })).toEqual(row);
    const threshold = await insertThreshold(database.prisma, {
      serviceId,
      fieldId: null,
      level: "10.00000000",
      type: "rate",
      cost: COST,
      groupId: null,
      tenantId: null,
    });
    expect(await database.prisma.threshold.findUnique({ where: { id: threshold.id } })).toEqual(
      threshold,
    );
    expect(threshold.seq).toBeGreaterThan(0);
  });

  it("raise the errors the domain maps: unique, foreign key, and the rest as they are", async () => {
    await insertMapping(database.prisma, mapping("dup"));
    const duplicate = await refusal(insertMapping(database.prisma, mapping("dup")));
    expect(isUniqueViolation(duplicate)).toBe(true);
    const orphan = await refusal(
      insertMapping(database.prisma, { ...mapping("x"), fieldId: crypto.randomUUID() }),
    );
    expect(isForeignKeyViolation(orphan)).toBe(true);
    expect(isUniqueViolation(orphan)).toBe(false);
    const unchecked = await refusal(insertMapping(database.prisma, { ...mapping("y"), cost: "1" }));
    expect(isUniqueViolation(unchecked) || isForeignKeyViolation(unchecked)).toBe(false);
    expect(String(unchecked)).toMatch(/CHECK constraint failed/);
  });

  it("wait for an interactive transaction's lock without blocking the event loop", async () => {
    let inserted = false;
    let pending: Promise<unknown> | undefined;
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 5);
    try {
      await database.prisma.$transaction(async (tx) => {
        await tx.group.create({ data: { name: "held" } });
        pending = insertMapping(database.prisma, mapping("during-tx")).then(() => {
          inserted = true;
        });
        await sleep(100);
        expect(inserted).toBe(false);
      });
      await pending;
    } finally {
      clearInterval(ticker);
    }
    expect(inserted).toBe(true);
    expect(ticks).toBeGreaterThan(5);
    expect(await database.prisma.group.count({ where: { name: "held" } })).toBe(1);
  });

  it("wait for another process's lock, and commit each write on its own", async () => {
    const other = new BetterSqlite3(file);
    try {
      other.exec("BEGIN IMMEDIATE");
      const pending = insertMapping(database.prisma, mapping("after-other"));
      await sleep(50);
      other.exec("ROLLBACK");
      const row = await pending;
      expect(
        other.prepare('SELECT "value" FROM "hashmap_mappings" WHERE "id" = ?').pluck().get(row.id),
      ).toBe("after-other");
    } finally {
      other.close();
    }
  });

  it("write inside a transaction through that transaction's client", async () => {
    const error = await refusal(
      database.prisma.$transaction(async (tx) => {
        await insertMapping(tx as PrismaClient, mapping("rolled-back"));
        throw new Error("roll back");
      }),
    );
    expect(String(error)).toMatch(/roll back/);
    expect(await database.prisma.mapping.count({ where: { value: "rolled-back" } })).toBe(0);
  });
});
