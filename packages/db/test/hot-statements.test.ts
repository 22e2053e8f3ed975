import { setTimeout as sleep } from "node:timers/promises";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  findLocalTokenByHash,
  insertMapping,
  insertThreshold,
  isCheckViolation,
  isForeignKeyViolation,
  isUniqueViolation,
  localAccountsGeneration,
  migrateDatabase,
  openDatabase,
  type Database,
} from "../src/index.js";
import { SQLITE_CACHE_KIB } from "../src/database.js";
import { preparedConnectionOf } from "../src/prepared-connection.js";
import { emptyDatabaseUrl, providers } from "./support/databases.js";
import { flatFieldMapping, seedFlavorField } from "./support/rules.js";

// The hot statements (prepared on SQLite, Prisma elsewhere) and the data version behave the same
// on every database: the rows Prisma reads back, the errors the domain maps, and a version that
// moves with every commit.

const COST = "1.5000000000000000000000000000";

async function refusal(write: Promise<unknown>): Promise<unknown> {
  return write.then(
    () => {
      throw new Error("the write should have been refused");
    },
    (error: unknown) => error,
  );
}

describe.each(providers)("on %s", (provider) => {
  let database: Database;
  let url: string;
  let fieldId: string;
  let serviceId: string;

  beforeAll(async () => {
    url = await emptyDatabaseUrl(provider, "hot");
    await migrateDatabase(url);
    database = await openDatabase({ url, poolSize: 4 });
    ({ serviceId, fieldId } = await seedFlavorField(database.prisma));
  });
  afterAll(async () => {
    await database.close();
  });

  const mapping = (value: string) => flatFieldMapping(fieldId, value, COST);

  it("reports which database it is", () => {
    expect(database.provider).toBe(provider);
    expect(database.settings.journalMode).toBe("wal");
  });

  it.runIf(provider === "sqlite")(
    "keep SQLite's own page cache size, not better-sqlite3's 16 MiB, on both connections",
    async () => {
      const [prisma] =
        await database.prisma.$queryRawUnsafe<{ cache_size: number | bigint }[]>(
          "PRAGMA cache_size",
        );
      expect(Number(prisma?.cache_size)).toBe(-SQLITE_CACHE_KIB);
      const prepared = preparedConnectionOf(database.prisma)!.statement("PRAGMA cache_size");
      expect(prepared.pluck().get()).toBe(-SQLITE_CACHE_KIB);
    },
  );

  it("create rules and return them as Prisma reads them back", async () => {
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
  });

  it("map refusals alike: unique, foreign key, check", async () => {
    await insertMapping(database.prisma, mapping("dup"));
    const duplicate = await refusal(insertMapping(database.prisma, mapping("dup")));
    expect(isUniqueViolation(duplicate), String(duplicate)).toBe(true);
    expect(isForeignKeyViolation(duplicate) || isCheckViolation(duplicate)).toBe(false);
    const orphan = await refusal(
      insertMapping(database.prisma, { ...mapping("x"), fieldId: crypto.randomUUID() }),
    );
    expect(isForeignKeyViolation(orphan), String(orphan)).toBe(true);
    expect(isUniqueViolation(orphan) || isCheckViolation(orphan)).toBe(false);
    const unchecked = await refusal(insertMapping(database.prisma, { ...mapping("y"), cost: "1" }));
    expect(isCheckViolation(unchecked), String(unchecked)).toBe(true);
    expect(isUniqueViolation(unchecked) || isForeignKeyViolation(unchecked)).toBe(false);
    expect(String(unchecked)).toMatch(/hashmap_mappings_cost_canonical/);
  });

  it("map a raw statement's refusals alike", async () => {
    const placeholder = (n: number) => (provider === "sqlite" ? "?" : `$${n}`);
    const insertGroup = `INSERT INTO "hashmap_groups" ("id", "name") VALUES (${placeholder(1)}, ${placeholder(2)})`;
    await database.prisma.$executeRawUnsafe(insertGroup, "raw-group", "raw-group");
    const duplicate = await refusal(
      database.prisma.$executeRawUnsafe(insertGroup, "raw-group-2", "raw-group"),
    );
    expect(isUniqueViolation(duplicate), String(duplicate)).toBe(true);
    const unchecked = await refusal(
      database.prisma.$executeRawUnsafe(
        `INSERT INTO "local_users" ("id", "name", "role", "password_hash") VALUES (${placeholder(1)}, 'n', 'owner', 'h')`,
        "raw-user",
      ),
    );
    expect(isCheckViolation(unchecked), String(unchecked)).toBe(true);
  });

  it("write inside a transaction through that transaction's client", async () => {
    const error = await refusal(
      database.prisma.$transaction(async (tx) => {
        await insertMapping(tx as typeof database.prisma, mapping("rolled-back"));
        throw new Error("roll back");
      }),
    );
    expect(String(error)).toMatch(/roll back/);
    expect(await database.prisma.mapping.count({ where: { value: "rolled-back" } })).toBe(0);
  });

  it("find a token and its user, and follow the accounts generation", async () => {
    const before = await localAccountsGeneration(database.prisma);
    const user = await database.prisma.localUser.create({
      data: { name: "ada", role: "admin", passwordHash: "x" },
    });
    await database.prisma.localToken.create({
      data: {
        userId: user.id,
        kind: "api",
        name: "ci",
        tokenHash: "hash-1",
        prefix: "rc_ab",
        expiresAt: new Date(Date.now() + 60_000),
        lastUsedAt: new Date(),
      },
    });
    const expected = await database.prisma.localToken.findUnique({
      where: { tokenHash: "hash-1" },
      select: {
        id: true,
        userId: true,
        kind: true,
        name: true,
        prefix: true,
        createdAt: true,
        expiresAt: true,
        lastUsedAt: true,
        revokedAt: true,
        user: { select: { name: true, role: true, createdAt: true, updatedAt: true } },
      },
    });
    expect(expected).not.toBeNull();
    expect(await findLocalTokenByHash(database.prisma, "hash-1")).toEqual(expected);
    expect(await findLocalTokenByHash(database.prisma, "unknown")).toBeNull();
    expect(await localAccountsGeneration(database.prisma)).toBeGreaterThan(before);
  });

  it("move the data version after its own writes, at once", async () => {
    for (const write of [
      () => database.prisma.group.create({ data: { name: "version-1" } }),
      () =>
        database.prisma.group.updateMany({
          data: { name: "version-2" },
          where: { name: "version-1" },
        }),
      () => insertMapping(database.prisma, mapping("version")),
      () => database.prisma.$transaction([database.prisma.group.create({ data: { name: "b" } })]),
      () =>
        database.prisma.$transaction(async (tx) => {
          await tx.group.deleteMany({ where: { name: "version-2" } });
        }),
      async () => {
        await database.prisma.group.create({ data: { name: "version-raw" } });
        await database.prisma.$executeRawUnsafe(
          `DELETE FROM "hashmap_groups" WHERE "name" = 'version-raw'`,
        );
      },
    ]) {
      const version = database.dataVersion();
      const exact = await database.readDataVersion();
      await write();
      expect(database.dataVersion()).not.toBe(version);
      expect(await database.readDataVersion()).not.toBe(exact);
    }
  });

  it("move the data version after another connection's commit", async () => {
    const other = await openDatabase({ url });
    try {
      const version = database.dataVersion();
      const exact = await database.readDataVersion();
      await other.prisma.group.create({ data: { name: "elsewhere" } });
      expect(await database.readDataVersion()).not.toBe(exact);
      const deadline = Date.now() + 2_000;
      while (database.dataVersion() === version && Date.now() < deadline) await sleep(10);
      expect(database.dataVersion()).not.toBe(version);
    } finally {
      await other.close();
    }
  });

  it("leave the data version alone for reads", async () => {
    await sleep(provider === "postgresql" ? 300 : 0);
    const version = database.dataVersion();
    await database.prisma.mapping.findMany();
    await database.prisma.service.count();
    await database.prisma.$queryRaw`SELECT 1`;
    await database.prisma.$transaction([database.prisma.mapping.findMany()]);
    await database.prisma.$transaction(async (tx) => tx.service.findMany());
    expect(database.dataVersion()).toBe(version);
  });
});

describe.runIf(providers.includes("postgresql"))("on postgresql", () => {
  it("bounds the pool and times statements out", async () => {
    const url = await emptyDatabaseUrl("postgresql", "pool");
    await migrateDatabase(url);
    const database = await openDatabase({ url, poolSize: 2, statementTimeoutMs: 200 });
    try {
      await expect(
        database.prisma.$queryRawUnsafe("SELECT 1 AS slept FROM pg_sleep(2)"),
      ).rejects.toThrow(/statement timeout/);
      await Promise.all(
        Array.from({ length: 6 }, () =>
          database.prisma.$queryRawUnsafe("SELECT 1 AS slept FROM pg_sleep(0.05)"),
        ),
      );
      const admin = new pg.Client({ connectionString: url });
      await admin.connect();
      try {
        const { rows } = await admin.query<{ count: string }>(
          `SELECT count(*) FROM pg_stat_activity WHERE application_name = 'ratecard' AND datname = current_database()`,
        );
        // The pool's two, and the one that reads the data version.
        expect(Number(rows[0]!.count)).toBeLessThanOrEqual(3);
      } finally {
        await admin.end();
      }
    } finally {
      await database.close();
    }
  });

  it("writes inside a transaction that holds the pool's only connection without waiting", async () => {
    const url = await emptyDatabaseUrl("postgresql", "pool-one");
    await migrateDatabase(url);
    const database = await openDatabase({ url, poolSize: 1, connectTimeoutMs: 2_000 });
    try {
      const started = Date.now();
      await database.prisma.$transaction(async (tx) => {
        await tx.group.create({ data: { name: "one" } });
        await tx.group.create({ data: { name: "two" } });
      });
      expect(Date.now() - started).toBeLessThan(1_000);
      expect(await database.prisma.group.count()).toBe(2);
    } finally {
      await database.close();
    }
  });

  it("moves the database's version once per writing transaction, at its commit", async () => {
    const url = await emptyDatabaseUrl("postgresql", "version-once");
    await migrateDatabase(url);
    const database = await openDatabase({ url });
    try {
      const before = await database.readDataVersion();
      let during: number | undefined;
      await database.prisma.$transaction(async (tx) => {
        await tx.group.createMany({ data: [{ name: "a" }, { name: "b" }, { name: "c" }] });
        await tx.group.updateMany({ data: { name: "d" }, where: { name: "a" } });
        during = await database.readDataVersion();
      });
      expect(during).toBe(before);
      expect(await database.readDataVersion()).toBe(before + 1);
      await database.prisma.group.deleteMany({ where: { name: "nothing" } });
      expect(await database.readDataVersion()).toBe(before + 1);
    } finally {
      await database.close();
    }
  });

  it("never deadlocks two writers on the version counter they share", async () => {
    const url = await emptyDatabaseUrl("postgresql", "version-deadlock");
    await migrateDatabase(url);
    // Two connections whose transactions move the same counter row (process ids equal mod 16).
    const clients: pg.Client[] = [];
    const byShard = new Map<number, pg.Client>();
    let pair: [pg.Client, pg.Client] | undefined;
    while (!pair) {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      clients.push(client);
      const shard = (client as unknown as { processID: number }).processID % 16;
      const other = byShard.get(shard);
      if (other) pair = [other, client];
      else byShard.set(shard, client);
    }
    const [a, b] = pair;
    try {
      await a.query(`INSERT INTO "hashmap_services" ("id", "name") VALUES ('s', 's')`);
      await a.query(
        `INSERT INTO "hashmap_fields" ("id", "name", "service_id") VALUES ('f', 'f', 's')`,
      );
      // b writes first; a then writes beneath the field b is about to delete; b deletes it, and
      // waits for a. Had b's first write locked the shared counter, a's commit would wait for b:
      // a cycle, which PostgreSQL breaks by failing one of them (40P01).
      await b.query("BEGIN");
      await b.query(`INSERT INTO "hashmap_groups" ("id", "name") VALUES ('g', 'g')`);
      await a.query("BEGIN");
      await a.query(
        `INSERT INTO "hashmap_mappings" ("id", "cost", "field_id", "value") VALUES ('m', '${COST}', 'f', 'v')`,
      );
      const deleting = b.query(`DELETE FROM "hashmap_fields" WHERE "id" = 'f'`);
      await sleep(50);
      await a.query("COMMIT");
      await deleting;
      await b.query("COMMIT");
      const { rows } = await a.query<{ count: string }>(`SELECT count(*) FROM "hashmap_mappings"`);
      expect(rows[0]!.count).toBe("0");
    } finally {
      await Promise.all(clients.map((client) => client.end()));
    }
  });

  it("fails fast when the server is unreachable", async () => {
    const started = Date.now();
    await expect(
      openDatabase({
        url: "postgresql://nobody:secret@127.0.0.1:1/ratecard",
        connectTimeoutMs: 500,
      }),
    ).rejects.toThrow(/Cannot reach PostgreSQL at postgresql:\/\/nobody:\*\*\*@/);
    expect(Date.now() - started).toBeLessThan(3_000);
  });
});
