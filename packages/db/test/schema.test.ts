import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  clientProvider,
  isCheckViolation,
  isForeignKeyViolation,
  isUniqueViolation,
  migrateDatabase,
  openDatabase,
  type Database,
} from "../src/index.js";
import { resolveDatabaseUrl } from "../src/database.js";
import { emptyDatabaseUrl, providers } from "./support/databases.js";

// The rules the database itself must enforce, because they have to hold under concurrency:
// checked here below the API, straight through the Prisma client, on every database.

const COST = "1.0000000000000000000000000000";

describe.each(providers)("on %s", (provider) => {
  let database: Database;
  let url: string;

  beforeAll(async () => {
    url = await emptyDatabaseUrl(provider, "schema");
    if (provider === "sqlite") url = url.replace(/ratecard\.db$/, "nested/dir/ratecard.db");
    await migrateDatabase(url);
    database = await openDatabase({ url });
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

  async function expectChecked(write: Promise<unknown>, constraint: RegExp) {
    const error = await write.then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error, "the write should have been refused").toBeDefined();
    expect(String(error)).toMatch(constraint);
    expect(isCheckViolation(error), String(error)).toBe(true);
    expect(isUniqueViolation(error) || isForeignKeyViolation(error)).toBe(false);
  }

  async function service(name: string) {
    return database.prisma.service.create({ data: { name } });
  }

  it("its client and its transaction clients say which database they talk to", async () => {
    expect(clientProvider(database.prisma)).toBe(provider);
    expect(await database.prisma.$transaction((tx) => Promise.resolve(clientProvider(tx)))).toBe(
      provider,
    );
    expect(() => clientProvider({})).toThrow(/Not a Ratecard database client/);
  });

  describe("migrations", () => {
    it("create the file and its directories, and apply again without change", async () => {
      if (provider === "sqlite") expect(fs.existsSync(url.slice("file:".length))).toBe(true);
      await database.prisma.service.create({ data: { name: "kept-across-migrations" } });
      await migrateDatabase(url);
      expect(
        await database.prisma.service.count({ where: { name: "kept-across-migrations" } }),
      ).toBe(1);
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
      await expectChecked(
        database.prisma.mapping.create({
          data: { serviceId: id, fieldId: field.id, value: "v", cost: COST },
        }),
        /hashmap_mappings_one_parent/,
      );
      await expectChecked(
        database.prisma.mapping.create({ data: { cost: COST } }),
        /hashmap_mappings_one_parent/,
      );
    });

    it("refuses a cost or level that is not canonical decimal text, and an unknown type", async () => {
      const { id } = await service("checks-decimal");
      await expectChecked(
        database.prisma.mapping.create({ data: { serviceId: id, cost: "0.5" } }),
        /cost_canonical/,
      );
      await expectChecked(
        database.prisma.threshold.create({ data: { serviceId: id, level: "10", cost: COST } }),
        /level_canonical/,
      );
      await expectChecked(
        database.prisma.threshold.create({
          data: { serviceId: id, level: "1.2.00000000", cost: COST },
        }),
        /level_canonical/,
      );
      await expectChecked(
        database.prisma.mapping.create({ data: { serviceId: id, cost: COST, type: "tiered" } }),
        /hashmap_mappings_type/,
      );
      await database.prisma.threshold.create({
        data: { serviceId: id, level: "-10.50000000", cost: "-0.0000000000000000000000000001" },
      });
    });

    it("refuses local accounts the rules do not allow", async () => {
      await expectChecked(
        database.prisma.localUser.create({ data: { name: "x", role: "owner", passwordHash: "h" } }),
        /local_users_role/,
      );
      await expectChecked(
        database.prisma.localUser.create({ data: { name: "", role: "admin", passwordHash: "h" } }),
        /local_users_name_not_empty/,
      );
      const user = await database.prisma.localUser.create({
        data: { name: "checks-user", role: "reader", passwordHash: "h" },
      });
      const token = { userId: user.id, prefix: "rc_", expiresAt: new Date() };
      await expectChecked(
        database.prisma.localToken.create({ data: { ...token, kind: "cookie", tokenHash: "a" } }),
        /local_tokens_kind/,
      );
      await expectChecked(
        database.prisma.localToken.create({ data: { ...token, kind: "api", tokenHash: "b" } }),
        /local_tokens_api_named/,
      );
      await expectRefused(
        database.prisma.localToken.create({
          data: { ...token, userId: "no-such-user", kind: "session", tokenHash: "c" },
        }),
        isForeignKeyViolation,
      );
    });

    it("keeps one accounts generation row, moved by every change to users and tokens", async () => {
      const read = async () =>
        (await database.prisma.localAccountsGeneration.findUniqueOrThrow({ where: { id: 1 } }))
          .generation;
      const before = await read();
      const user = await database.prisma.localUser.create({
        data: { name: "generation-user", role: "reader", passwordHash: "h" },
      });
      const created = await read();
      expect(created).toBeGreaterThan(before);
      await database.prisma.localToken.create({
        data: {
          userId: user.id,
          kind: "session",
          tokenHash: "generation-token",
          prefix: "rs_",
          expiresAt: new Date(),
        },
      });
      const tokened = await read();
      expect(tokened).toBeGreaterThan(created);
      await database.prisma.localUser.delete({ where: { id: user.id } });
      expect(await read()).toBeGreaterThan(tokened);
      await expectChecked(
        database.prisma.localAccountsGeneration.create({ data: { id: 2 } }),
        /local_accounts_generation_one_row/,
      );
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
      expect(await database.prisma.mapping.findUnique({ where: { id: mapping.id } })).toMatchObject(
        {
          groupId: null,
        },
      );
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
});

describe("resolveDatabaseUrl", () => {
  it("makes a relative file path absolute", () => {
    expect(resolveDatabaseUrl("file:./data/x.db")).toBe(`file:${path.resolve("data/x.db")}`);
  });

  it("passes PostgreSQL URLs through", () => {
    expect(resolveDatabaseUrl("postgres://localhost/db")).toBe("postgres://localhost/db");
    expect(resolveDatabaseUrl("postgresql://u:p@h:5432/db")).toBe("postgresql://u:p@h:5432/db");
  });

  it.each(["mysql://localhost/db", "file:", "file::memory:"])(
    "refuses %j with a clear message",
    (url) => {
      expect(() => resolveDatabaseUrl(url)).toThrow(/DATABASE_URL|Unsupported/);
    },
  );
});
