import { createHash, randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrateDatabase, openDatabase, type Database, type PrismaClient } from "@ratecard/db";
import {
  exportRuleSet,
  parseRuleSet,
  planRuleSet,
  toJson,
  toStoredCost,
  toStoredLevel,
  toYaml,
  type RuleSetDocument,
  type RuleSetMapping,
  type RuleSetThreshold,
} from "../src/index.js";
import { lifecycleRuleSet, sampleRuleSet, uuid } from "./support/fixtures.js";

// Against a real database migrated with the repository's migrations, seeded through Prisma: a
// temporary SQLite file always, and a fresh PostgreSQL database when test/global-setup.ts has a
// cluster (RATECARD_TEST_POSTGRES_URL).

type Provider = "sqlite" | "postgresql";
const postgresAdminUrl = process.env.RATECARD_TEST_POSTGRES_URL;
const providers: Provider[] = postgresAdminUrl ? ["sqlite", "postgresql"] : ["sqlite"];

async function freshDatabase(provider: Provider = "sqlite"): Promise<Database> {
  if (provider === "sqlite") {
    const directory = fs.mkdtempSync(path.join(os.tmpdir(), "ratecard-ruleset-"));
    const url = `file:${path.join(directory, "test.db")}`;
    await migrateDatabase(url);
    return openDatabase({ url, durability: "normal" });
  }
  const name = `ratecard_ruleset_${randomBytes(4).toString("hex")}`;
  const admin = new pg.Client({ connectionString: postgresAdminUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE "${name}"`);
  } finally {
    await admin.end();
  }
  const url = new URL(postgresAdminUrl!);
  url.pathname = `/${name}`;
  await migrateDatabase(url.toString());
  return openDatabase({ url: url.toString(), poolSize: 4 });
}

/** Writes a document's objects as rows (what apply will do, minus its checks and audit). */
async function seed(prisma: PrismaClient, document: RuleSetDocument): Promise<void> {
  const moment = (text: string | null | undefined) =>
    text === undefined ? undefined : text === null ? null : new Date(`${text}Z`);
  const lifecycle = (r: { start?: string; end?: string | null; description?: string | null }) => ({
    start: moment(r.start) ?? undefined,
    end: moment(r.end),
    description: r.description,
  });
  const rule = (r: RuleSetMapping | RuleSetThreshold) => ({
    id: r.id,
    type: r.type,
    cost: toStoredCost(r.cost),
    tenantId: r.tenant_id,
    groupId: r.group_id,
    ...lifecycle(r),
    name: r.name,
  });
  await prisma.$transaction(async (tx) => {
    for (const m of document.modules) {
      await tx.ratingModule.update({
        where: { id: m.id },
        data: { enabled: m.enabled, priority: m.priority },
      });
    }
    await tx.group.createMany({ data: document.groups.map((g) => ({ id: g.id, name: g.name })) });
    for (const s of document.services) {
      await tx.service.create({ data: { id: s.id, name: s.name } });
      await tx.mapping.createMany({
        data: s.mappings.map((m) => ({ ...rule(m), serviceId: s.id, value: m.value })),
      });
      await tx.threshold.createMany({
        data: s.thresholds.map((t) => ({
          ...rule(t),
          serviceId: s.id,
          level: toStoredLevel(t.level),
        })),
      });
      for (const f of s.fields) {
        await tx.field.create({ data: { id: f.id, name: f.name, serviceId: s.id } });
        await tx.mapping.createMany({
          data: f.mappings.map((m) => ({ ...rule(m), fieldId: f.id, value: m.value })),
        });
        await tx.threshold.createMany({
          data: f.thresholds.map((t) => ({
            ...rule(t),
            fieldId: f.id,
            level: toStoredLevel(t.level),
          })),
        });
      }
    }
    await tx.script.createMany({
      data: document.scripts.map((s) => ({
        id: s.id,
        name: s.name,
        data: s.data,
        checksum: createHash("sha512").update(s.data).digest("hex"),
        ...lifecycle(s),
      })),
    });
  });
}

describe.each(providers)("exportRuleSet on %s", (provider) => {
  let database: Database;
  const revisionOptions = (revision: string) => ({ revision, provider });
  beforeAll(async () => {
    database = await freshDatabase(provider);
  });
  afterAll(async () => {
    await database?.close();
  });

  it("exports an empty Ratecard: the three rating modules and nothing else", async () => {
    const document = await exportRuleSet(database.prisma, revisionOptions("0"));
    expect(document).toEqual({
      format: "ratecard.ruleset",
      version: 2,
      revision: "0",
      modules: [
        { id: "hashmap", enabled: true, priority: 1 },
        { id: "noop", enabled: false, priority: 1 },
        { id: "pyscripts", enabled: true, priority: 1 },
      ],
      groups: [],
      services: [],
      scripts: [],
    });
  });

  it("exports what was stored, byte-identical to the document it came from", async () => {
    await seed(database.prisma, lifecycleRuleSet());
    const exported = await exportRuleSet(database.prisma, revisionOptions("42"));
    expect(toJson(exported)).toBe(toJson(lifecycleRuleSet()));
    // Without the lifecycle: what CloudKitty 17 holds, the version-1 sample's content.
    const bare = await exportRuleSet(database.prisma, {
      ...revisionOptions("42"),
      lifecycle: false,
    });
    expect(toJson({ ...bare, version: 1 })).toBe(toJson(sampleRuleSet()));
    // The costs went through the database's 28-digit text and came back exact.
    const stored = await database.prisma.mapping.findUniqueOrThrow({ where: { id: uuid(200) } });
    expect(stored.cost).toBe("123456789.1234567890000000000000000000");
    const flavor = exported.services[0]!.fields[0]!;
    expect(flavor.mappings.map((m) => m.cost)).toEqual([
      "0.1234567890123456789012345678",
      "123456789.123456789",
      "2",
    ]);
  });

  it("export -> serialize -> parse gives the same document, in JSON and YAML, and an empty plan", async () => {
    const exported = await exportRuleSet(database.prisma, revisionOptions("7"));
    for (const text of [toJson(exported), toYaml(exported)]) {
      const parsed = parseRuleSet(text);
      if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));
      expect(parsed.document).toEqual(exported);
      expect(toJson(parsed.document)).toBe(toJson(exported));
      expect(planRuleSet(exported, parsed.document).operations).toEqual([]);
    }
    // Two exports of unchanged data are the same bytes.
    expect(toJson(await exportRuleSet(database.prisma, revisionOptions("7")))).toBe(
      toJson(exported),
    );
  });

  it('exports a service mapping stored with value "" as no value', async () => {
    await database.prisma.mapping.update({ where: { id: uuid(100) }, data: { value: "" } });
    const exported = await exportRuleSet(database.prisma, revisionOptions("42"));
    expect(exported.services[0]!.mappings[0]!.value).toBeNull();
    expect(toJson(exported)).toBe(toJson(lifecycleRuleSet()));
  });

  it("reads inside the caller's transaction when given one", async () => {
    const inside = await database.prisma
      .$transaction(async (tx) => {
        await tx.group.update({ where: { id: uuid(1) }, data: { name: "gold-renamed" } });
        const document = await exportRuleSet(tx, revisionOptions("tx"));
        throw Object.assign(new Error("rollback"), { document });
      })
      .catch((error: Error & { document: RuleSetDocument }) => error.document);
    expect(inside.groups.map((g) => g.name)).toEqual(["gold-renamed", "silver"]);
    const after = await exportRuleSet(database.prisma, revisionOptions("42"));
    expect(after.groups.map((g) => g.name)).toEqual(["gold", "silver"]);
  });
});

describe("exportRuleSet's queries", () => {
  it("reads each table once with a select, however many rows (10,000 mappings)", async () => {
    const database = await freshDatabase();
    try {
      const services = 10;
      const fieldsPerService = 10;
      const mappingsPerField = 100;
      await database.prisma.$transaction(async (tx) => {
        for (let s = 0; s < services; s++) {
          const serviceId = uuid(10_000 + s);
          await tx.service.create({ data: { id: serviceId, name: `service-${s}` } });
          for (let f = 0; f < fieldsPerService; f++) {
            const fieldId = uuid(20_000 + s * 100 + f);
            await tx.field.create({ data: { id: fieldId, name: `field-${f}`, serviceId } });
            await tx.mapping.createMany({
              data: Array.from({ length: mappingsPerField }, (_, m) => ({
                id: uuid(1_000_000 + (s * 100 + f) * 1000 + m),
                fieldId,
                value: `value-${m}`,
                type: "flat",
                cost: toStoredCost(`0.${m + 1}`),
              })),
            });
          }
        }
      });

      const queries: { model: string | undefined; operation: string; select: boolean }[] = [];
      const counted = database.prisma.$extends({
        query: {
          $allOperations({ model, operation, args, query }) {
            queries.push({
              model,
              operation,
              select: typeof args === "object" && args !== null && "select" in args,
            });
            return query(args);
          },
        },
      }) as unknown as PrismaClient;

      const started = performance.now();
      const document = await exportRuleSet(counted, { revision: "big" });
      const json = toJson(document);
      const elapsed = performance.now() - started;

      expect(document.services).toHaveLength(services);
      expect(document.services.flatMap((s) => s.fields.flatMap((f) => f.mappings))).toHaveLength(
        services * fieldsPerService * mappingsPerField,
      );
      expect(queries.map((q) => `${q.model}.${q.operation}`).sort()).toEqual([
        "Field.findMany",
        "Group.findMany",
        "Mapping.findMany",
        "RatingModule.findMany",
        "Script.findMany",
        "Service.findMany",
        "Threshold.findMany",
      ]);
      expect(queries.every((q) => q.select)).toBe(true);
      // Mappings sort by value as text: value-0, value-1, value-10, ...
      expect(document.services[0]!.fields[0]!.mappings.slice(0, 3).map((m) => m.value)).toEqual([
        "value-0",
        "value-1",
        "value-10",
      ]);
      console.log(
        `export of 10,000 mappings + JSON: ${elapsed.toFixed(0)} ms, ${(json.length / 1e6).toFixed(1)} MB`,
      );
    } finally {
      await database.close();
    }
  });
});
