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

describe("console deletion impact", () => {
  it("counts a service's fields and every rule beneath it, and nothing of other services", async () => {
    const service = await caller.hashmap.services.create({ name: "impact.volume" });
    const other = await caller.hashmap.services.create({ name: "impact.other" });
    const field = await caller.hashmap.fields.create({
      name: "volume_type",
      service_id: service.service_id,
    });
    await caller.hashmap.fields.create({ name: "az", service_id: service.service_id });
    await caller.hashmap.mappings.create({ service_id: service.service_id, cost: "0.1" });
    await caller.hashmap.mappings.create({ field_id: field.field_id, value: "ssd", cost: "1" });
    await caller.hashmap.mappings.create({ field_id: field.field_id, value: "hdd", cost: "0.5" });
    await caller.hashmap.thresholds.create({
      field_id: field.field_id,
      level: "10",
      cost: "0.9",
      type: "rate",
    });
    await caller.hashmap.mappings.create({ service_id: other.service_id, cost: "3" });

    const impact = await caller.console.serviceDeletionImpact({ service_id: service.service_id });
    expect(impact).toEqual({ fields: 2, mappings: 3, thresholds: 1 });
    expect(await caller.console.fieldDeletionImpact({ field_id: field.field_id })).toEqual({
      mappings: 2,
      thresholds: 1,
    });

    await caller.hashmap.services.delete({ service_id: service.service_id });
    await expect(
      caller.console.serviceDeletionImpact({ service_id: service.service_id }),
    ).rejects.toMatchObject({
      code: "NOT_FOUND",
    });
  });

  it("counts the rules of a group", async () => {
    const service = await caller.hashmap.services.create({ name: "impact.group" });
    const group = await caller.hashmap.groups.create({ name: "impact-group" });
    await caller.hashmap.mappings.create({
      service_id: service.service_id,
      cost: "1",
      group_id: group.group_id,
    });
    await caller.hashmap.mappings.create({ service_id: service.service_id, cost: "2" });
    await caller.hashmap.thresholds.create({
      service_id: service.service_id,
      level: "5",
      cost: "1",
      group_id: group.group_id,
    });
    expect(await caller.console.groupDeletionImpact({ group_id: group.group_id })).toEqual({
      mappings: 1,
      thresholds: 1,
    });
  });

  it("lists the fields of every service", async () => {
    const a = await caller.hashmap.services.create({ name: "all-fields.a" });
    const b = await caller.hashmap.services.create({ name: "all-fields.b" });
    await caller.hashmap.fields.create({ name: "flavor", service_id: a.service_id });
    await caller.hashmap.fields.create({ name: "flavor", service_id: b.service_id });
    const { fields } = await caller.console.allFields();
    const mine = fields.filter(
      (f) => f.service_id === a.service_id || f.service_id === b.service_id,
    );
    expect(mine.map((f) => f.name)).toEqual(["flavor", "flavor"]);
  });
});
