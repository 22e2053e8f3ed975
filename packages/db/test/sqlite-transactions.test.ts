import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrateDatabase, openDatabase, type Database } from "../src/index.js";
import { emptyDatabaseUrl } from "./support/databases.js";

// SQLite's one Prisma connection: a query made outside an open interactive transaction must not
// run inside it (see SerializedSqliteAdapterFactory in src/sqlite.ts).

describe("on sqlite, beside an open interactive transaction", () => {
  let database: Database;

  beforeAll(async () => {
    const url = await emptyDatabaseUrl("sqlite", "sqlite-transactions");
    await migrateDatabase(url);
    database = await openDatabase({ url });
  });
  afterAll(async () => {
    await database?.close();
  });

  it("a write waits for the transaction, and survives its rollback", async () => {
    const { prisma } = database;
    let release!: () => void;
    const paused = new Promise<void>((resolve) => (release = resolve));
    let inside!: () => void;
    const started = new Promise<void>((resolve) => (inside = resolve));
    const rolledBack = prisma
      .$transaction(async (tx) => {
        await tx.group.create({ data: { name: "rolled-back" } });
        inside();
        await paused;
        throw new Error("roll back");
      })
      .catch((error: unknown) => error);
    await started;
    const outside = prisma.group.create({ data: { name: "kept" } });
    // The outside write must not see, nor be part of, the open transaction.
    setTimeout(release, 50);
    expect(String(await rolledBack)).toMatch(/roll back/);
    await outside;
    const names = (await prisma.group.findMany()).map((group) => group.name);
    expect(names).toEqual(["kept"]);
  });

  it("a read never sees the transaction's uncommitted rows", async () => {
    const { prisma } = database;
    let release!: () => void;
    const paused = new Promise<void>((resolve) => (release = resolve));
    let inside!: () => void;
    const started = new Promise<void>((resolve) => (inside = resolve));
    const committed = prisma.$transaction(async (tx) => {
      await tx.group.create({ data: { name: "uncommitted" } });
      inside();
      await paused;
    });
    await started;
    const read = prisma.group.count({ where: { name: "uncommitted" } });
    setTimeout(release, 50);
    await committed;
    // Queued behind the transaction, the read runs after its commit.
    expect(await read).toBe(1);
  });
});
