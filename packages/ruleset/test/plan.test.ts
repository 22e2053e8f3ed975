import { describe, expect, it } from "vitest";
import {
  planRuleSet,
  validateRuleSet,
  type PlanOperation,
  type RuleSetDocument,
} from "../src/index.js";
import { ids, lifecycleRuleSet, sampleRuleSet, scrambled, uuid } from "./support/fixtures.js";

/** The sample, validated (canonical order), to change at will. */
function sample(): RuleSetDocument {
  const result = validateRuleSet(sampleRuleSet());
  if (!result.ok) throw new Error("sample is invalid");
  return result.document;
}

const brief = (operation: PlanOperation) =>
  `${operation.op} ${operation.kind} ${operation.path}${operation.changes ? ` [${operation.changes.join(",")}]` : ""}`;

describe("planRuleSet", () => {
  it("is empty for equal documents, whatever their order or revision", () => {
    const current = sample();
    const desired = scrambled(sample(), 3);
    desired.revision = "another";
    const plan = planRuleSet(current, desired);
    expect(plan.operations).toEqual([]);
    expect(plan.errors).toEqual([]);
    expect(plan.counts.create + plan.counts.update + plan.counts.delete).toBe(0);
    expect(plan.revision).toBe("42");
  });

  it("creates everything into an empty rule set, parents first", () => {
    const empty: RuleSetDocument = { ...sample(), groups: [], services: [], scripts: [] };
    const plan = planRuleSet(empty, sample());
    expect(plan.operations.map(brief)).toEqual([
      "create group groups/gold",
      "create group groups/silver",
      "create service services/compute",
      "create service services/volume.size",
      "create field services/compute/fields/flavor",
      "create field services/compute/fields/image_id",
      "create field services/volume.size/fields/volume_type",
      `create mapping services/compute/mappings/${uuid(100)}`,
      `create mapping services/compute/mappings/${uuid(101)}`,
      `create mapping services/compute/fields/flavor/mappings/${uuid(201)}`,
      `create mapping services/compute/fields/flavor/mappings/${uuid(200)}`,
      `create mapping services/compute/fields/flavor/mappings/${uuid(202)}`,
      `create mapping services/compute/fields/image_id/mappings/${uuid(210)}`,
      `create threshold services/compute/thresholds/${uuid(110)}`,
      `create threshold services/compute/thresholds/${uuid(111)}`,
      `create threshold services/compute/fields/image_id/thresholds/${uuid(220)}`,
      "create script scripts/discount",
    ]);
    expect(plan.counts).toMatchObject({ create: 17, update: 0, delete: 0 });
    expect(plan.counts.byKind.mapping).toEqual({ create: 6, update: 0, delete: 0 });
    const mapping = plan.operations.find((o) => o.id === uuid(200))!;
    expect(mapping.before).toBeNull();
    expect(mapping.after).toEqual({
      id: uuid(200),
      service_id: null,
      field_id: ids.flavor,
      value: "m1.small",
      type: "flat",
      cost: "123456789.123456789",
      tenant_id: null,
      group_id: ids.silver,
    });
  });

  it("deletes everything from a full rule set, leaves first (the reverse order)", () => {
    const empty: RuleSetDocument = { ...sample(), groups: [], services: [], scripts: [] };
    const plan = planRuleSet(sample(), empty);
    expect(plan.operations.map((o) => `${o.op} ${o.kind}`)).toEqual([
      "delete script",
      ...Array<string>(3).fill("delete threshold"),
      ...Array<string>(6).fill("delete mapping"),
      ...Array<string>(3).fill("delete field"),
      ...Array<string>(2).fill("delete service"),
      ...Array<string>(2).fill("delete group"),
    ]);
    expect(plan.operations.every((o) => o.after === null && o.before !== null)).toBe(true);
    expect(plan.counts.delete).toBe(17);
  });

  it("updates a cost in place, naming the changed keys with before and after", () => {
    const desired = sample();
    desired.services[0]!.fields[0]!.mappings[1]!.cost = "123456789.123456788";
    const plan = planRuleSet(sample(), desired);
    expect(plan.operations).toEqual([
      {
        op: "update",
        kind: "mapping",
        id: uuid(200),
        path: `services/compute/fields/flavor/mappings/${uuid(200)}`,
        before: expect.objectContaining({ cost: "123456789.123456789" }),
        after: expect.objectContaining({ cost: "123456789.123456788" }),
        changes: ["cost"],
      },
    ]);
    expect(plan.counts).toMatchObject({ create: 0, update: 1, delete: 0 });
    expect(plan.counts.byKind.mapping.update).toBe(1);
  });

  it("compares decimals exactly: a difference in the 28th digit is a change, 0.50 vs 0.5 is not", () => {
    const current = sample();
    current.services[0]!.fields[0]!.mappings[0]!.cost = "0.1234567890123456789012345678";
    const desired = sample();
    desired.services[0]!.fields[0]!.mappings[0]!.cost = "0.1234567890123456789012345679";
    expect(planRuleSet(current, desired).operations.map((o) => o.changes)).toEqual([["cost"]]);
    const same = sample();
    same.services[0]!.thresholds[0]!.level = "10.000";
    same.services[0]!.mappings[0]!.cost = "0.0100";
    expect(planRuleSet(sample(), same).operations).toEqual([]);
  });

  it("updates every kind in place: type, tenant, group, value, level, names, script data, modules", () => {
    const desired = sample();
    const compute = desired.services[0]!;
    compute.name = "instance";
    compute.fields[0]!.name = "flavor_name";
    compute.mappings[0]!.type = "rate";
    compute.mappings[1]!.tenant_id = null;
    compute.thresholds[1]!.group_id = null; // out of its group
    compute.thresholds[0]!.group_id = ids.silver; // into a group
    compute.thresholds[0]!.level = "20";
    compute.fields[1]!.mappings[0]!.value = "other";
    desired.groups[0]!.name = "platinum";
    desired.scripts[0]!.data = "pass\n";
    desired.modules[1]!.enabled = true;
    desired.modules[2]!.priority = 10;
    const plan = planRuleSet(sample(), desired);
    expect(plan.operations.map(brief)).toEqual([
      "update group groups/platinum [name]",
      "update service services/instance [name]",
      "update field services/instance/fields/flavor_name [name]",
      `update mapping services/instance/mappings/${uuid(100)} [type]`,
      `update mapping services/instance/mappings/${uuid(101)} [tenant_id]`,
      `update mapping services/instance/fields/image_id/mappings/${uuid(210)} [value]`,
      `update threshold services/instance/thresholds/${uuid(110)} [level,group_id]`,
      `update threshold services/instance/thresholds/${uuid(111)} [group_id]`,
      "update script scripts/discount [data]",
      "update module modules/noop [enabled]",
      "update module modules/pyscripts [priority]",
    ]);
    expect(plan.counts).toMatchObject({ create: 0, update: 11, delete: 0 });
  });

  it("a rule moved to another parent is a delete and a create of the same id, with the reason", () => {
    const desired = sample();
    const compute = desired.services[0]!;
    // m1.large moves from flavor to image_id.
    const [moved] = compute.fields[0]!.mappings.splice(0, 1);
    compute.fields[1]!.mappings.push(moved!);
    // A service threshold moves to the field image_id.
    const [threshold] = compute.thresholds.splice(0, 1);
    compute.fields[1]!.thresholds.push({ ...threshold!, level: "5" });
    const plan = planRuleSet(sample(), desired);
    expect(plan.operations.map(brief)).toEqual([
      `delete threshold services/compute/thresholds/${uuid(110)}`,
      `delete mapping services/compute/fields/flavor/mappings/${uuid(201)}`,
      `create mapping services/compute/fields/image_id/mappings/${uuid(201)}`,
      `create threshold services/compute/fields/image_id/thresholds/${uuid(110)}`,
    ]);
    for (const operation of plan.operations) {
      expect(operation.reason).toMatch(
        /^moved to another parent: a rule cannot change its service or field/,
      );
    }
    const [, deleteMapping, createMapping] = plan.operations;
    expect(deleteMapping!.before).toMatchObject({ field_id: ids.flavor });
    expect(createMapping!.after).toMatchObject({
      field_id: ids.image,
      cost: "0.1234567890123456789012345678",
    });
    expect(plan.counts).toMatchObject({ create: 2, update: 0, delete: 2 });
  });

  it("a field moved to another service is re-created, and its rules with it", () => {
    const desired = sample();
    const [flavor] = desired.services[0]!.fields.splice(0, 1);
    desired.services[1]!.fields.push(flavor!);
    // A rule of the moved field also changes its cost: still one delete and one create.
    flavor!.mappings[0]!.cost = "7";
    const plan = planRuleSet(sample(), desired);
    expect(plan.operations.map(brief)).toEqual([
      `delete mapping services/compute/fields/flavor/mappings/${uuid(200)}`,
      `delete mapping services/compute/fields/flavor/mappings/${uuid(201)}`,
      `delete mapping services/compute/fields/flavor/mappings/${uuid(202)}`,
      "delete field services/compute/fields/flavor",
      "create field services/volume.size/fields/flavor",
      `create mapping services/volume.size/fields/flavor/mappings/${uuid(201)}`,
      `create mapping services/volume.size/fields/flavor/mappings/${uuid(200)}`,
      `create mapping services/volume.size/fields/flavor/mappings/${uuid(202)}`,
    ]);
    expect(plan.operations[3]!.reason).toMatch(/^moved to another service/);
    expect(plan.operations[0]!.reason).toMatch(/^its field is deleted and created again/);
    expect(plan.operations[5]!.after).toMatchObject({ cost: "7", field_id: ids.flavor });
  });

  it("adds and removes single rules, groups and scripts", () => {
    const desired = sample();
    desired.services[0]!.fields[0]!.mappings.push({
      id: uuid(700),
      value: "m1.tiny",
      type: "flat",
      cost: "0.00000001",
      tenant_id: "project-z",
      group_id: ids.gold,
    });
    desired.services[0]!.fields[1]!.thresholds = [];
    desired.groups.push({ id: uuid(3), name: "bronze" });
    desired.scripts = [];
    const plan = planRuleSet(sample(), desired);
    expect(plan.operations.map(brief)).toEqual([
      "delete script scripts/discount",
      `delete threshold services/compute/fields/image_id/thresholds/${uuid(220)}`,
      "create group groups/bronze",
      `create mapping services/compute/fields/flavor/mappings/${uuid(700)}`,
    ]);
    expect(plan.counts.byKind).toMatchObject({
      script: { create: 0, update: 0, delete: 1 },
      threshold: { create: 0, update: 0, delete: 1 },
      group: { create: 1, update: 0, delete: 0 },
      mapping: { create: 1, update: 0, delete: 0 },
    });
  });

  it("deletes before creates, so that a name or rule identity is free when it is used again", () => {
    const desired = sample();
    // The same group name and the same rule under new ids.
    desired.groups[1] = { id: uuid(4), name: "silver" };
    for (const mapping of desired.services[0]!.fields[0]!.mappings) {
      if (mapping.group_id === ids.silver) mapping.group_id = uuid(4);
    }
    desired.services[0]!.mappings[0]!.id = uuid(800);
    const ops = planRuleSet(sample(), desired).operations.map(brief);
    expect(ops).toEqual([
      `delete mapping services/compute/mappings/${uuid(100)}`,
      "delete group groups/silver",
      "create group groups/silver",
      `update mapping services/compute/fields/flavor/mappings/${uuid(200)} [group_id]`,
      `update mapping services/compute/fields/flavor/mappings/${uuid(202)} [group_id]`,
      `create mapping services/compute/mappings/${uuid(800)}`,
    ]);
  });

  it("modules are only updated: one missing from the document stays, an unknown one is an error", () => {
    const desired = sample();
    desired.modules = [
      { id: "hashmap", enabled: false, priority: 1 },
      { id: "nosuch", enabled: true, priority: 1 },
    ];
    const plan = planRuleSet(sample(), desired);
    expect(plan.operations.map(brief)).toEqual(["update module modules/hashmap [enabled]"]);
    expect(plan.errors).toEqual([
      {
        path: "modules[1].id",
        message: 'no rating module "nosuch": modules are a fixed set (hashmap, noop, pyscripts)',
      },
    ]);
  });

  it("escapes / and % in the names of paths", () => {
    const desired = sample();
    desired.services[1]!.name = "a/b%c";
    const plan = planRuleSet(sample(), desired);
    expect(plan.operations.map((o) => o.path)).toEqual(["services/a%2Fb%25c"]);
  });
});

describe("planRuleSet: the lifecycle", () => {
  function withLifecycle(): RuleSetDocument {
    const result = validateRuleSet(lifecycleRuleSet());
    if (!result.ok) throw new Error(JSON.stringify(result.issues));
    return result.document;
  }

  it("a document without the lifecycle keys (version 1) keeps Ratecard's: no operation", () => {
    expect(planRuleSet(withLifecycle(), sample()).operations).toEqual([]);
  });

  it("a changed end, a removed end, a new description are updates of those keys", () => {
    const desired = withLifecycle();
    const inForce = desired.services[0]!.mappings[0]!;
    const ended = desired.services[0]!.thresholds[0]!;
    inForce.end = "2027-01-01T00:00:00";
    ended.end = null;
    desired.scripts[0]!.description = null;
    const plan = planRuleSet(withLifecycle(), desired);
    expect(plan.operations.map(brief)).toEqual([
      `update mapping services/compute/mappings/${uuid(100)} [end]`,
      `update threshold services/compute/thresholds/${uuid(110)} [end]`,
      "update script scripts/discount [description]",
    ]);
    const first = plan.operations[0]!;
    expect(first.before).toMatchObject({ end: null });
    expect(first.after).toMatchObject({ end: "2027-01-01T00:00:00", start: "2026-01-01T00:00:00" });
  });

  it("a create states the lifecycle it was given, and only that", () => {
    const desired = withLifecycle();
    desired.services[0]!.mappings.push({
      id: uuid(900),
      value: null,
      type: "flat",
      cost: "1",
      tenant_id: "project-z",
      group_id: null,
      end: "2031-01-01T00:00:00",
    });
    const [create] = planRuleSet(withLifecycle(), desired).operations;
    expect(create).toMatchObject({ op: "create", after: { end: "2031-01-01T00:00:00" } });
    expect(create!.after).not.toHaveProperty("start");
  });

  it("a rule moved to another parent keeps its lifecycle when the document leaves it out", () => {
    const current = withLifecycle();
    const desired = sample();
    const rule = desired.services[0]!.mappings.pop()!;
    desired.services[0]!.fields[0]!.mappings.push({ ...rule, value: "m1.moved" });
    const create = planRuleSet(current, desired).operations.find((op) => op.op === "create");
    expect(create?.after).toMatchObject({ start: "2030-01-01T00:00:00", name: "rule-065" });
  });
});

describe("planRuleSet: an end before the start the document leaves out", () => {
  it("is a plan error with the path", () => {
    const current = validateRuleSet(lifecycleRuleSet());
    if (!current.ok) throw new Error("invalid");
    const desired = sample();
    desired.version = 2;
    // uuid(101) is scheduled from 2030.
    desired.services[0]!.mappings[1]!.end = "2029-01-01T00:00:00";
    const plan = planRuleSet(current.document, desired);
    expect(plan.errors).toEqual([
      {
        path: "services[0].mappings[1].end",
        message: "before its start (2030-01-01T00:00:00, which the document leaves as it is)",
      },
    ]);
  });
});
