import { afterAll, describe, expect, it } from "vitest";
import { migrateDatabase, openDatabase, type Database } from "../src/index.js";
import { emptyDatabaseUrl, postgresAdminUrl } from "./support/databases.js";

// PostgreSQL only: how a transaction ends when its COMMIT fails. adapter-pg leaves that
// connection checked out; with a pool of two, a third such failure would starve every query.

const opened: Database[] = [];
afterAll(async () => {
  await Promise.all(opened.map((database) => database.close()));
});

describe.runIf(postgresAdminUrl)("a transaction whose COMMIT fails, on postgresql", () => {
  it("gives its connection back, so failures never starve the pool", async () => {
    const url = await emptyDatabaseUrl("postgresql", "commit-fails");
    await migrateDatabase(url);
    const database = await openDatabase({ url, poolSize: 2, connectTimeoutMs: 2_000 });
    opened.push(database);
    const { prisma } = database;
    // A constraint checked at COMMIT: a duplicate is refused by the COMMIT statement itself.
    await prisma.$executeRawUnsafe(
      "CREATE TABLE commit_probe (k int, CONSTRAINT commit_probe_k UNIQUE (k) DEFERRABLE INITIALLY DEFERRED)",
    );
    for (let i = 0; i < 5; i++) {
      await expect(
        prisma.$transaction(async (tx) => {
          await tx.$executeRawUnsafe("INSERT INTO commit_probe (k) VALUES (1), (1)");
        }),
      ).rejects.toThrow(/UniqueConstraintViolation|commit_probe_k|duplicate key/);
    }
    // Every connection came back: queries and transactions still run, none waits.
    expect(await prisma.service.count()).toBe(0);
    await prisma.$transaction(async (tx) => {
      await tx.$executeRawUnsafe("INSERT INTO commit_probe (k) VALUES (2)");
    });
    expect(database.poolStats?.()).toMatchObject({ waiting: 0, max: 2 });
  });
});
