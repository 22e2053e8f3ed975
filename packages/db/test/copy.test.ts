import { execFileSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { copyDatabase, CopyError } from "../src/copy.js";
import { migrateDatabase, openDatabase, type Database } from "../src/index.js";
import { emptyDatabaseUrl, providers } from "./support/databases.js";

// The copy command between the two databases, both ways: every row and id kept, lists equal, and
// the copy usable afterwards (new rows follow the copied ones).

const CLI = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../dist/copy-cli.js");
const opened: Database[] = [];
afterAll(async () => {
  await Promise.all(opened.map((database) => database.close()));
});

async function open(url: string): Promise<Database> {
  const database = await openDatabase({ url });
  opened.push(database);
  return database;
}

/** A bit of everything: parents, rules with groups and tenants, a script, a module, an account. */
async function seed(url: string): Promise<void> {
  await migrateDatabase(url);
  const { prisma } = await open(url);
  const service = await prisma.service.create({ data: { name: "compute" } });
  const field = await prisma.field.create({ data: { name: "flavor", serviceId: service.id } });
  const group = await prisma.group.create({ data: { name: "instance_uptime" } });
  await prisma.mapping.create({
    data: { fieldId: field.id, value: "m1.small", cost: "0.0100000000000000000000000000" },
  });
  await prisma.mapping.create({
    data: {
      fieldId: field.id,
      value: "m1.large",
      type: "rate",
      cost: "2.5000000000000000000000000000",
      groupId: group.id,
      tenantId: "tenant-a",
    },
  });
  await prisma.mapping.create({
    data: { serviceId: service.id, cost: "1.0000000000000000000000000000" },
  });
  await prisma.threshold.create({
    data: {
      serviceId: service.id,
      level: "10.00000000",
      cost: "0.5000000000000000000000000000",
      groupId: group.id,
    },
  });
  await prisma.script.create({
    data: { name: "policy", data: "def rate(x):\n    return x\n", checksum: "abc" },
  });
  await prisma.ratingModule.update({ where: { id: "hashmap" }, data: { priority: 7 } });
  const user = await prisma.localUser.create({
    data: { name: "ops", role: "admin", passwordHash: "$argon2id$v=19$m=19456,t=2,p=1$x$y" },
  });
  await prisma.localToken.create({
    data: {
      userId: user.id,
      kind: "api",
      name: "ci",
      tokenHash: "f".repeat(64),
      prefix: "rc_abcd",
      expiresAt: new Date("2027-01-01T00:00:00.000Z"),
    },
  });
}

async function contents(url: string) {
  const { prisma } = await open(url);
  return {
    services: await prisma.service.findMany({ orderBy: { seq: "asc" } }),
    fields: await prisma.field.findMany({ orderBy: { seq: "asc" } }),
    groups: await prisma.group.findMany({ orderBy: { seq: "asc" } }),
    mappings: await prisma.mapping.findMany({ orderBy: { seq: "asc" } }),
    thresholds: await prisma.threshold.findMany({ orderBy: { seq: "asc" } }),
    scripts: await prisma.script.findMany({ orderBy: { seq: "asc" } }),
    modules: await prisma.ratingModule.findMany({ orderBy: { id: "asc" } }),
    users: await prisma.localUser.findMany({ orderBy: { id: "asc" } }),
    tokens: await prisma.localToken.findMany({ orderBy: { id: "asc" } }),
  };
}

describe("pnpm db:copy", () => {
  const pairs = providers.flatMap((from) => providers.map((to) => [from, to] as const));

  it.each(pairs)("copies %s to %s with every id, and the copy takes new rows", async (from, to) => {
    const source = await emptyDatabaseUrl(from, "copy-from");
    const target = await emptyDatabaseUrl(to, "copy-to");
    await seed(source);
    const report = await copyDatabase(source, target);
    expect(report.rows).toMatchObject({
      services: 1,
      mappings: 3,
      thresholds: 1,
      "local tokens": 1,
    });
    expect(await contents(target)).toEqual(await contents(source));

    const copy = await open(target);
    const next = await copy.prisma.service.create({ data: { name: "storage" } });
    const copied = await copy.prisma.service.findFirstOrThrow({ where: { name: "compute" } });
    expect(next.seq).toBeGreaterThan(copied.seq);
  });

  it("refuses a target that holds data, and changes nothing there", async () => {
    const [provider] = providers;
    const source = await emptyDatabaseUrl(provider!, "copy-from");
    const target = await emptyDatabaseUrl(provider!, "copy-to");
    await seed(source);
    await migrateDatabase(target);
    const existing = await open(target);
    await existing.prisma.group.create({ data: { name: "already-here" } });
    const before = await contents(target);
    await expect(copyDatabase(source, target)).rejects.toThrow(CopyError);
    await expect(copyDatabase(source, target)).rejects.toThrow(
      /already holds 1 groups: copy into an empty database/,
    );
    expect(await contents(target)).toEqual(before);
  });

  it("runs as a command: exit 0 and a table of rows, exit 1 and one line on failure", async () => {
    const source = await emptyDatabaseUrl("sqlite", "copy-from");
    const target = await emptyDatabaseUrl("sqlite", "copy-to");
    await seed(source);
    const output = execFileSync(process.execPath, [CLI, source, target]).toString();
    expect(output).toContain("every table read back and equal");
    expect(output).toContain("mappings: 3");
    let failure: { status: number; stderr: Buffer } | undefined;
    try {
      execFileSync(process.execPath, [CLI, source, target], { stdio: "pipe" });
    } catch (error) {
      failure = error as { status: number; stderr: Buffer };
    }
    expect(failure?.status).toBe(1);
    expect(failure?.stderr.toString()).toMatch(/^Ratecard copy failed: .*already holds/);
  });
});
