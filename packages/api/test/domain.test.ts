import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "@ratecard/db";
import { openTestDatabase } from "./support/database.js";

let database: Database;
let caller: Awaited<ReturnType<typeof openTestDatabase>>["caller"];

beforeAll(async () => {
  ({ database, caller } = await openTestDatabase());
});
afterAll(async () => {
  await database.close();
});

async function seedService(name: string) {
  const service = await caller.hashmap.services.create({ name });
  const field = await caller.hashmap.fields.create({
    name: "flavor",
    service_id: service.service_id,
  });
  const group = await caller.hashmap.groups.create({ name: `${name}-group` });
  return { service, field, group };
}

describe("rule identity", () => {
  it("refuses an identical mapping when tenant and group are null", async () => {
    const { field } = await seedService("identity-null");
    await caller.hashmap.mappings.create({ field_id: field.field_id, value: "m1", cost: "1" });
    await expect(
      caller.hashmap.mappings.create({ field_id: field.field_id, value: "m1", cost: "2" }),
    ).rejects.toThrow(/Mapping for value 'm1' already exists for field .*, no tenant, no group/);
  });

  it("refuses an identical mapping for one tenant in one group, allows it in another group", async () => {
    const { field, group } = await seedService("identity-tenant");
    const rule = {
      field_id: field.field_id,
      value: "m1",
      cost: "1",
      tenant_id: "t1",
      group_id: group.group_id,
    };
    await caller.hashmap.mappings.create(rule);
    await expect(caller.hashmap.mappings.create(rule)).rejects.toMatchObject({ code: "CONFLICT" });
    await expect(
      caller.hashmap.mappings.create({ ...rule, group_id: null }),
    ).resolves.toMatchObject({ group_id: null });
  });

  it('makes "10" and "10.0" the same threshold level', async () => {
    const { service } = await seedService("identity-level");
    await caller.hashmap.thresholds.create({
      service_id: service.service_id,
      level: "10",
      cost: "1",
    });
    await expect(
      caller.hashmap.thresholds.create({
        service_id: service.service_id,
        level: "10.0",
        cost: "2",
      }),
    ).rejects.toThrow(/Threshold for level 10.00000000 already exists/);
  });
});

describe("cascades", () => {
  it("deleting a service deletes its fields and every rule beneath them", async () => {
    const { service, field } = await seedService("cascade-service");
    await caller.hashmap.mappings.create({ service_id: service.service_id, cost: "1" });
    await caller.hashmap.mappings.create({ field_id: field.field_id, value: "a", cost: "1" });
    await caller.hashmap.thresholds.create({ field_id: field.field_id, level: "1", cost: "1" });
    await caller.hashmap.services.delete({ service_id: service.service_id });
    expect(await database.prisma.field.count({ where: { serviceId: service.service_id } })).toBe(0);
    expect(await caller.hashmap.mappings.list({ field_id: field.field_id })).toEqual({
      mappings: [],
    });
    expect(await caller.hashmap.mappings.list({ service_id: service.service_id })).toEqual({
      mappings: [],
    });
    expect(await caller.hashmap.thresholds.list({ field_id: field.field_id })).toEqual({
      thresholds: [],
    });
  });

  it("deleting a group without recursion moves its rules to no group", async () => {
    const { field, group } = await seedService("group-keep");
    const mapping = await caller.hashmap.mappings.create({
      field_id: field.field_id,
      value: "a",
      cost: "1",
      group_id: group.group_id,
    });
    await caller.hashmap.groups.delete({ group_id: group.group_id, recursive: false });
    expect(await caller.hashmap.mappings.get({ mapping_id: mapping.mapping_id })).toMatchObject({
      group_id: null,
    });
  });

  it("deleting a group recursively deletes its rules", async () => {
    const { field, group } = await seedService("group-recursive");
    await caller.hashmap.mappings.create({
      field_id: field.field_id,
      value: "a",
      cost: "1",
      group_id: group.group_id,
    });
    await caller.hashmap.thresholds.create({
      field_id: field.field_id,
      level: "5",
      cost: "1",
      group_id: group.group_id,
    });
    await caller.hashmap.groups.delete({ group_id: group.group_id, recursive: true });
    expect(await caller.hashmap.mappings.list({ field_id: field.field_id })).toEqual({
      mappings: [],
    });
    expect(await caller.hashmap.thresholds.list({ field_id: field.field_id })).toEqual({
      thresholds: [],
    });
  });

  it("refuses a group delete that would make two rules identical, and changes nothing", async () => {
    const { field, group } = await seedService("group-conflict");
    await caller.hashmap.mappings.create({ field_id: field.field_id, value: "a", cost: "1" });
    await caller.hashmap.mappings.create({
      field_id: field.field_id,
      value: "b",
      cost: "1",
      group_id: group.group_id,
    });
    await caller.hashmap.mappings.create({
      field_id: field.field_id,
      value: "a",
      cost: "2",
      group_id: group.group_id,
    });
    const before = await caller.hashmap.mappings.list({ field_id: field.field_id });
    await expect(caller.hashmap.groups.delete({ group_id: group.group_id })).rejects.toMatchObject({
      code: "CONFLICT",
    });
    expect(await caller.hashmap.mappings.list({ field_id: field.field_id })).toEqual(before);
    await expect(caller.hashmap.groups.get({ group_id: group.group_id })).resolves.toEqual(group);
  });
});

describe("updates", () => {
  it("replaces type and tenant, keeps the parent and an omitted group, removes a null group", async () => {
    const { field, group } = await seedService("update");
    const created = await caller.hashmap.mappings.create({
      field_id: field.field_id,
      value: "a",
      type: "rate",
      cost: "2",
      tenant_id: "t1",
      group_id: group.group_id,
    });
    const updated = await caller.hashmap.mappings.update({
      mapping_id: created.mapping_id,
      value: "b",
      cost: "3",
    });
    expect(updated).toEqual({
      ...created,
      value: "b",
      type: "flat",
      cost: "3.0000000000000000000000000000",
      tenant_id: null,
      // Without a request there is no user: CloudKitty master writes 'unknown' (docs/lifecycle.md).
      updated_by: "unknown",
      // Every change moves the revision (RPC answers show it; REST moves it into the ETag).
      revision: created.revision! + 1,
    });
    const ungrouped = await caller.hashmap.mappings.update({
      mapping_id: created.mapping_id,
      value: "b",
      cost: "3",
      group_id: null,
    });
    expect(ungrouped.group_id).toBeNull();
  });
});
