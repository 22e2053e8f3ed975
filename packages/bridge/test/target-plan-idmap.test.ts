import { describe, expect, it } from "vitest";
import { canonicalizeRuleSet, type RuleSetDocument } from "@ratecard/ruleset";
import { isEmptyTargetPlan, planTarget } from "../src/index.js";

// The plan through a target's id map (CloudKitty generates its own ids, so after an apply the two
// sides' ids differ), its pairings (`matched`, for rebuilding the map) and the opt-ins.

const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`;
/** CloudKitty's id of Ratecard's object n. */
const ck = (n: number) => `99999999-0000-4000-8000-${String(n).padStart(12, "0")}`;

function ruleSet(ids: (n: number) => string, smallGroup: boolean): RuleSetDocument {
  return canonicalizeRuleSet({
    format: "ratecard.ruleset",
    version: 1,
    revision: "",
    modules: [{ id: "hashmap", enabled: true, priority: 1 }],
    groups: [{ id: ids(1), name: "uptime" }],
    services: [
      {
        id: ids(10),
        name: "compute",
        mappings: [],
        thresholds: [],
        fields: [
          {
            id: ids(11),
            name: "flavor",
            mappings: [
              {
                id: ids(21),
                value: "m1.small",
                type: "flat",
                cost: "0.5",
                tenant_id: null,
                group_id: smallGroup ? ids(1) : null,
              },
            ],
            thresholds: [],
          },
        ],
      },
    ],
    scripts: [{ id: ids(40), name: "discount", data: "pass" }],
  });
}

const idMap = new Map(
  [
    ["group", 1],
    ["service", 10],
    ["field", 11],
    ["mapping", 21],
    ["script", 40],
  ].map(([kind, n]) => [`${kind}:${id(n as number)}`, ck(n as number)]),
);

describe("planTarget through the id map", () => {
  it("pairs objects with other ids by natural key and reports every pairing", () => {
    const plan = planTarget(ruleSet(id, true), ruleSet(ck, true), { prune: true });
    expect(isEmptyTargetPlan(plan)).toBe(true);
    expect(plan.matched).toContainEqual({
      kind: "mapping",
      ratecard_id: id(21),
      target_id: ck(21),
    });
    expect(plan.matched).toHaveLength(5);
  });

  it("replaces a rule taken out of its group (the map pairs it; its natural key changed)", () => {
    const withoutMap = planTarget(ruleSet(id, false), ruleSet(ck, true), { prune: true });
    expect(withoutMap.operations.map((o) => [o.op, o.kind])).toEqual([
      ["create", "mapping"],
      ["delete", "mapping"],
    ]);
    const withMap = planTarget(ruleSet(id, false), ruleSet(ck, true), { prune: true, idMap });
    expect(withMap.operations).toEqual([
      expect.objectContaining({
        op: "replace",
        kind: "mapping",
        ratecard_id: id(21),
        target_id: ck(21),
        reason: "CloudKitty cannot take a rule out of a group",
      }),
    ]);
  });

  it("ignores a stale entry and pairs by natural key instead", () => {
    const stale = new Map([[`mapping:${id(21)}`, ck(999)]]);
    const plan = planTarget(ruleSet(id, true), ruleSet(ck, true), { prune: true, idMap: stale });
    expect(isEmptyTargetPlan(plan)).toBe(true);
    expect(plan.matched).toContainEqual({
      kind: "mapping",
      ratecard_id: id(21),
      target_id: ck(21),
    });
  });

  it("leaves scripts and modules out unless the target pushes them", () => {
    const desired = ruleSet(id, true);
    desired.scripts[0]!.data = "changed";
    desired.modules[0]!.enabled = false;
    const pushed = planTarget(desired, ruleSet(ck, true), { prune: true, idMap });
    expect(pushed.operations.map((o) => [o.op, o.kind])).toEqual([
      ["module", "module"],
      ["update", "script"],
    ]);
    const kept = planTarget(desired, ruleSet(ck, true), {
      prune: true,
      idMap,
      scripts: false,
      modules: false,
    });
    expect(kept.operations).toEqual([]);
  });

  it("compares only what CloudKitty 17 holds of a rule (lifecycle keys are not changes)", () => {
    const desired = ruleSet(id, true);
    Object.assign(desired.services[0]!.fields[0]!.mappings[0]!, {
      start: "2026-01-01T00:00:00",
      end: null,
      name: "small",
      description: "a rule",
    });
    expect(isEmptyTargetPlan(planTarget(desired, ruleSet(ck, true), { prune: true, idMap }))).toBe(
      true,
    );
  });
});
