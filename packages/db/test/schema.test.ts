import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  isForeignKeyViolation,
  isUniqueViolation,
  migrateDatabase,
  openDatabase,
  type Database,
} from "../src/index.js";
import { resolveDatabaseUrl } from "../src/database.js";

// The rules the database itself must enforce, because they have to hold under concurrency:
// checked here below the API, straight through the Prisma client.

const COST = "1.0000000000000000000000000000";
let database: Database;
let directory: string;

beforeAll(async () => {
  directory = fs.mkdtempSync(path.join(os.tmpdir(), "ratecard-db-"));
  await migrateDatabase(`file:${directory}/nested/dir/ratecard.db`);
  database = await openDatabase({ url: `file:${directory}/nested/dir/ratecard.db` });
});
afterAll(async () => {
  await database.close();
});

async function expectRefused(write: Promise<unknown>, isExpected: (error: unknown) => boolean) {
  const error = await write.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error, "the write should have been refused").toBeDefined();
  expect(isExpected(error), String(error)).toBe(true);
}

async function service(name: string) {
  return database.prisma.service.create({ data: { name } });
}

describe("migrations", () => {
  it("create the file and its directories, and apply again without change", async () => {
    expect(fs.existsSync(path.join(directory, "nested/dir/ratecard.db"))).toBe(true);
    await database.prisma.service.create({ data: { name: "kept-across-migrations" } });
    await migrateDatabase(`file:${directory}/nested/dir/ratecard.db`);
    expect(await database.prisma.service.count({ where: { name: "kept-across-migrations" } })).toBe(
      1,
    );
  });

  it("seed the rating modules", async () => {
    const modules = await database.prisma.ratingModule.findMany({ orderBy: { id: "asc" } });
    expect(modules.map((module) => [module.id, module.enabled])).toEqual([
      ["hashmap", true],
      ["noop", false],
      ["pyscripts", true],
    ]);
  });
});

describe("rule identity", () => {
  it("makes identical mappings collide when tenant and group are NULL", async () => {
    const { id } = await service("identity-null");
    await database.prisma.mapping.create({ data: { serviceId: id, cost: COST } });
    await expectRefused(
      database.prisma.mapping.create({ data: { serviceId: id, cost: COST } }),
      isUniqueViolation,
    );
  });

  it("treats a NULL and an empty service-mapping value as the same rule", async () => {
    const { id } = await service("identity-empty-value");
    await database.prisma.mapping.create({ data: { serviceId: id, cost: COST, value: null } });
    await expectRefused(
      database.prisma.mapping.create({ data: { serviceId: id, cost: COST, value: "" } }),
      isUniqueViolation,
    );
  });

  it("lets the same rule exist for another tenant and in another group", async () => {
    const { id } = await service("identity-scopes");
    const group = await database.prisma.group.create({ data: { name: "identity-scopes" } });
    await database.prisma.mapping.create({ data: { serviceId: id, cost: COST } });
    await database.prisma.mapping.create({ data: { serviceId: id, cost: COST, tenantId: "t1" } });
    await database.prisma.mapping.create({
      data: { serviceId: id, cost: COST, groupId: group.id },
    });
    expect(await database.prisma.mapping.count({ where: { serviceId: id } })).toBe(3);
  });

  it("makes thresholds collide on parent, level, tenant and group", async () => {
    const { id } = await service("identity-threshold");
    await database.prisma.threshold.create({
      data: { serviceId: id, level: "10.00000000", cost: COST },
    });
    await expectRefused(
      database.prisma.threshold.create({
        data: { serviceId: id, level: "10.00000000", cost: COST },
      }),
      isUniqueViolation,
    );
  });

  it("keeps names unique: services, groups, scripts, and fields per service", async () => {
    const first = await service("unique-name");
    await expectRefused(service("unique-name"), isUniqueViolation);
    const second = await service("unique-name-2");
    await database.prisma.field.create({ data: { name: "flavor", serviceId: first.id } });
    await database.prisma.field.create({ data: { name: "flavor", serviceId: second.id } });
    await expectRefused(
      database.prisma.field.create({ data: { name: "flavor", serviceId: first.id } }),
      isUniqueViolation,
    );
  });
});

describe("checks", () => {
  it("refuses a rule with both parents or none", async () => {
    const { id } = await service("checks-parent");
    const field = await database.prisma.field.create({ data: { name: "f", serviceId: id } });
    await expect(
      database.prisma.mapping.create({
        data: { serviceId: id, fieldId: field.id, value: "v", cost: COST },
      }),
    ).rejects.toThrow(/hashmap_mappings_one_parent/);
    await expect(database.prisma.mapping.create({ data: { cost: COST } })).rejects.toThrow(
      /hashmap_mappings_one_parent/,
    );
  });

  it("refuses a cost or level that is not canonical decimal text, and an unknown type", async () => {
    const { id } = await service("checks-decimal");
    await expect(
      database.prisma.mapping.create({ data: { serviceId: id, cost: "0.5" } }),
    ).rejects.toThrow(/cost_canonical/);
    await expect(
      database.prisma.threshold.create({ data: { serviceId: id, level: "10", cost: COST } }),
    ).rejects.toThrow(/level_canonical/);
    await expect(
      database.prisma.mapping.create({ data: { serviceId: id, cost: COST, type: "tiered" } }),
    ).rejects.toThrow(/hashmap_mappings_type/);
  });
});

describe("foreign keys", () => {
  it("cascade from a service to its fields and every rule beneath", async () => {
    const { id } = await service("fk-cascade");
    const field = await database.prisma.field.create({ data: { name: "f", serviceId: id } });
    await database.prisma.mapping.create({ data: { fieldId: field.id, value: "a", cost: COST } });
    await database.prisma.threshold.create({
      data: { fieldId: field.id, level: "1.00000000", cost: COST },
    });
    await database.prisma.mapping.create({ data: { serviceId: id, cost: COST } });
    await database.prisma.service.delete({ where: { id } });
    expect(await database.prisma.field.count({ where: { id: field.id } })).toBe(0);
    expect(
      await database.prisma.mapping.count({
        where: { OR: [{ fieldId: field.id }, { serviceId: id }] },
      }),
    ).toBe(0);
    expect(await database.prisma.threshold.count({ where: { fieldId: field.id } })).toBe(0);
  });

  it("set a deleted group's rules to no group", async () => {
    const { id } = await service("fk-set-null");
    const group = await database.prisma.group.create({ data: { name: "fk-set-null" } });
    const mapping = await database.prisma.mapping.create({
      data: { serviceId: id, cost: COST, groupId: group.id },
    });
    await database.prisma.group.delete({ where: { id: group.id } });
    expect(await database.prisma.mapping.findUnique({ where: { id: mapping.id } })).toMatchObject({
      groupId: null,
    });
  });

  it("refuse a rule whose group does not exist", async () => {
    const { id } = await service("fk-missing");
    await expectRefused(
      database.prisma.mapping.create({
        data: { serviceId: id, cost: COST, groupId: "no-such-group" },
      }),
      isForeignKeyViolation,
    );
  });
});

describe("resolveDatabaseUrl", () => {
  it("makes a relative file path absolute", () => {
    expect(resolveDatabaseUrl("file:./data/x.db")).toBe(`file:${path.resolve("data/x.db")}`);
  });

  it.each(["postgres://localhost/db", "file:", "file::memory:"])(
    "refuses %j with a clear message",
    (url) => {
      expect(() => resolveDatabaseUrl(url)).toThrow(/DATABASE_URL|Unsupported/);
    },
  );
});
