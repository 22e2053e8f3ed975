import { describe, expect, it } from "vitest";
import { canonicalizeRuleSet, type RuleSetDocument } from "@ratecard/ruleset";
import { isEmptyTargetPlan, planTarget, type DuplicateRule } from "../src/index.js";

// Hand-built documents: the plan is pure, no CloudKitty needed.

const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`;

function base(): RuleSetDocument {
  return canonicalizeRuleSet({
    format: "ratecard.ruleset",
    version: 1,
    revision: "",
    modules: [
      { id: "hashmap", enabled: true, priority: 1 },
      { id: "noop", enabled: false, priority: 1 },
      { id: "pyscripts", enabled: false, priority: 1 },
    ],
    groups: [
      { id: id(1), name: "uptime" },
      { id: id(2), name: "storage" },
    ],
    services: [
      {
        id: id(10),
        name: "compute",
        mappings: [
          { id: id(20), value: null, type: "flat", cost: "1", tenant_id: null, group_id: null },
        ],
        thresholds: [
          { id: id(30), level: "10", type: "rate", cost: "0.9", tenant_id: null, group_id: null },
        ],
        fields: [
          {
            id: id(11),
            name: "flavor",
            mappings: [
              {
                id: id(21),
                value: "m1.small",
                type: "flat",
                cost: "0.5",
                tenant_id: null,
                group_id: id(1),
              },
            ],
            thresholds: [],
          },
        ],
      },
    ],
    scripts: [{ id: id(40), name: "discount", data: "pass" }],
  });
}

const clone = (d: RuleSetDocument): RuleSetDocument => structuredClone(d);
const brief = (plan: ReturnType<typeof planTarget>) =>
  plan.operations.map((o) => [o.op, o.kind, o.path]);

describe("planTarget", () => {
  it("is empty for equal documents", () => {
    const plan = planTarget(base(), base(), { prune: false });
    expect(plan.operations).toEqual([]);
    expect(isEmptyTargetPlan(plan)).toBe(true);
  });

  it("updates a cost in place, compared as exact decimals", () => {
    const mine = clone(base());
    mine.services[0]!.fields[0]!.mappings[0]!.cost = "0.75";
    const theirs = clone(base());
    theirs.services[0]!.thresholds[0]!.cost = "0.90"; // the same decimal
    const plan = planTarget(mine, theirs, { prune: false });
    expect(plan.operations).toEqual([
      expect.objectContaining({
        op: "update",
        kind: "mapping",
        path: "compute/flavor/mappings/m1.small",
        ratecard_id: id(21),
        target_id: id(21),
        changes: ["cost"],
        before: expect.objectContaining({ cost: "0.5" }),
        after: expect.objectContaining({ cost: "0.75" }),
      }),
    ]);
    expect(plan.counts.update).toBe(1);
    expect(plan.byKind.mapping.update).toBe(1);
  });

  it("compares at double precision when asked", () => {
    const theirs = clone(base());
    theirs.services[0]!.fields[0]!.mappings[0]!.cost = "0.50000000000000000001";
    expect(planTarget(base(), theirs, { prune: false }).counts.update).toBe(1);
    const plan = planTarget(base(), theirs, { prune: false, doublePrecision: true });
    expect(plan.operations).toEqual([]);
    expect(plan.doublePrecision).toBe(true);
  });

  it("creates what CloudKitty lacks, matching the rest by natural key when ids differ", () => {
    const mine = clone(base());
    mine.services[0]!.fields[0]!.mappings.push({
      id: id(22),
      value: "m1.large",
      type: "flat",
      cost: "2",
      tenant_id: null,
      group_id: null,
    });
    // CloudKitty's own ids for the same objects (a target Ratecard did not import from).
    const theirs = clone(base());
    theirs.groups.find((g) => g.name === "uptime")!.id = id(101);
    theirs.services[0]!.id = id(110);
    theirs.services[0]!.fields[0]!.id = id(111);
    theirs.services[0]!.fields[0]!.mappings[0]!.id = id(121);
    theirs.services[0]!.fields[0]!.mappings[0]!.group_id = id(101);
    const plan = planTarget(mine, theirs, { prune: true });
    expect(brief(plan)).toEqual([["create", "mapping", "compute/flavor/mappings/m1.large"]]);
  });

  it("replaces a rule moved to another parent or taken out of its group", () => {
    const mine = clone(base());
    const field = mine.services[0]!.fields[0]!;
    const moved = field.mappings.pop()!;
    mine.services[0]!.fields.push({
      id: id(12),
      name: "image",
      mappings: [moved],
      thresholds: [],
    });
    mine.services[0]!.thresholds[0]!.group_id = id(2); // into a group: in place
    const plan = planTarget(mine, base(), { prune: false });
    expect(plan.operations).toEqual([
      expect.objectContaining({ op: "create", kind: "field", path: "compute/image" }),
      expect.objectContaining({
        op: "update",
        kind: "threshold",
        changes: ["group"],
      }),
      expect.objectContaining({
        op: "replace",
        kind: "mapping",
        path: "compute/image/mappings/m1.small",
        reason: "CloudKitty cannot move a rule to another parent",
      }),
    ]);

    const outOfGroup = clone(base());
    outOfGroup.services[0]!.fields[0]!.mappings[0]!.group_id = null;
    expect(planTarget(outOfGroup, base(), { prune: false }).operations).toEqual([
      expect.objectContaining({
        op: "replace",
        reason: "CloudKitty cannot take a rule out of a group",
      }),
    ]);
  });

  it("replaces a renamed service (CloudKitty cannot rename one)", () => {
    const mine = clone(base());
    mine.services[0]!.name = "instance";
    const plan = planTarget(mine, base(), { prune: false });
    expect(plan.operations[0]).toEqual(
      expect.objectContaining({ op: "replace", kind: "service", path: "instance" }),
    );
  });

  it("deletes objects only in CloudKitty with prune, else reports them unmanaged", () => {
    const mine = clone(base());
    mine.services[0]!.thresholds = [];
    mine.scripts = [];
    const pruned = planTarget(mine, base(), { prune: true });
    expect(brief(pruned)).toEqual([
      ["delete", "script", "scripts/discount"],
      ["delete", "threshold", "compute/thresholds/10"],
    ]);
    const kept = planTarget(mine, base(), { prune: false });
    expect(brief(kept)).toEqual([
      ["unmanaged", "script", "scripts/discount"],
      ["unmanaged", "threshold", "compute/thresholds/10"],
    ]);
    expect(kept.operations[1]).toEqual(
      expect.objectContaining({ ratecard_id: null, target_id: id(30), after: null }),
    );
    expect(isEmptyTargetPlan(kept)).toBe(true);
    expect(isEmptyTargetPlan(pruned)).toBe(false);
  });

  it("lists module changes and script updates", () => {
    const mine = clone(base());
    mine.modules[2] = { id: "pyscripts", enabled: true, priority: 5 };
    mine.scripts[0]!.data = "print(1)";
    const plan = planTarget(mine, base(), { prune: false });
    expect(plan.operations).toEqual([
      expect.objectContaining({
        op: "module",
        path: "modules/pyscripts",
        changes: ["enabled", "priority"],
        before: { enabled: false, priority: 1 },
        after: { enabled: true, priority: 5 },
      }),
      expect.objectContaining({ op: "update", kind: "script", changes: ["data"] }),
    ]);
    expect(plan.counts.module).toBe(1);
  });

  it("reports CloudKitty's duplicates", () => {
    const duplicate: DuplicateRule = {
      kind: "mapping",
      parent: "compute/flavor",
      key: "m1.small",
      tenant_id: null,
      group_id: id(1),
      kept: { id: id(21), cost: "0.5", type: "flat" },
      dropped: [{ id: id(99), cost: "0.6", type: "flat" }],
      costsDiffer: true,
    };
    const plan = planTarget(base(), base(), { prune: true, duplicates: [duplicate] });
    expect(plan.operations).toEqual([
      expect.objectContaining({
        op: "duplicate",
        kind: "mapping",
        path: "compute/flavor/mappings/m1.small",
        target_id: id(99),
        reason: expect.stringContaining(id(21)),
      }),
    ]);
    expect(plan.counts.duplicate).toBe(1);
  });
});
