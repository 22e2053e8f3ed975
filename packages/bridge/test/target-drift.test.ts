import { describe, expect, it } from "vitest";
import { canonicalizeRuleSet, type RuleSetDocument } from "@ratecard/ruleset";
import { driftTarget, type DuplicateRule } from "../src/index.js";

// Hand-built documents: drift is pure, no CloudKitty needed.

const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`;
const ck = (n: number) => `cccccccc-0000-4000-8000-${String(n).padStart(12, "0")}`;

function ratecard(): RuleSetDocument {
  return canonicalizeRuleSet({
    format: "ratecard.ruleset",
    version: 1,
    revision: "",
    modules: [
      { id: "hashmap", enabled: true, priority: 1 },
      { id: "noop", enabled: false, priority: 1 },
      { id: "pyscripts", enabled: false, priority: 1 },
    ],
    groups: [{ id: id(1), name: "uptime" }],
    services: [
      {
        id: id(10),
        name: "instance",
        mappings: [],
        thresholds: [
          { id: id(30), level: "10", type: "rate", cost: "0.9", tenant_id: null, group_id: null },
        ],
        fields: [
          {
            id: id(11),
            name: "flavor_name",
            mappings: [
              {
                id: id(21),
                value: "m1.small",
                type: "flat",
                cost: "0.5",
                tenant_id: null,
                group_id: id(1),
              },
              {
                id: id(22),
                value: "m1.large",
                type: "flat",
                cost: "0.1",
                tenant_id: null,
                group_id: null,
              },
            ],
            thresholds: [],
          },
        ],
      },
    ],
    scripts: [],
  });
}

/** The same rules as CloudKitty holds them after an apply: its own ids. */
function applied(): { target: RuleSetDocument; idMap: Map<string, string> } {
  const target = structuredClone(ratecard());
  const idMap = new Map<string, string>();
  const swap = (kind: string, o: { id: string }) => {
    const n = Number(o.id.slice(-12));
    idMap.set(`${kind}:${o.id}`, ck(n));
    o.id = ck(n);
  };
  for (const g of target.groups) swap("group", g);
  for (const s of target.services) {
    swap("service", s);
    for (const t of s.thresholds) swap("threshold", t);
    for (const f of s.fields) {
      swap("field", f);
      for (const m of f.mappings) {
        swap("mapping", m);
        if (m.group_id) m.group_id = ck(Number(m.group_id.slice(-12)));
      }
    }
  }
  return { target, idMap };
}

const brief = (drift: ReturnType<typeof driftTarget>) =>
  drift.differences.map((d) => [d.against, d.kind, d.path, d.field, d.expected, d.actual]);

describe("driftTarget", () => {
  it("is empty when CloudKitty holds what was applied and Ratecard has not changed", () => {
    const { target, idMap } = applied();
    const drift = driftTarget({ target, ratecard: ratecard(), lastApplied: ratecard(), idMap });
    expect(drift.differences).toEqual([]);
    expect(Object.values(drift.counts).every((n) => n === 0)).toBe(true);
  });

  it("names a changed cost with both values, a deleted mapping and an added one, with both ids", () => {
    const { target, idMap } = applied();
    const field = target.services[0]!.fields[0]!;
    field.mappings.find((m) => m.value === "m1.small")!.cost = "0.75";
    field.mappings = field.mappings.filter((m) => m.value !== "m1.large");
    field.mappings.push({
      id: ck(99),
      value: "m1.tiny",
      type: "rate",
      cost: "2",
      tenant_id: null,
      group_id: null,
    });
    const drift = driftTarget({ target, ratecard: ratecard(), lastApplied: ratecard(), idMap });
    for (const against of ["last_apply", "ratecard"] as const) {
      const mine = drift.differences.filter((d) => d.against === against);
      expect(mine).toEqual(
        expect.arrayContaining([
          expect.objectContaining({
            kind: "changed",
            path: "instance/flavor_name/mappings/m1.small",
            ratecard_id: id(21),
            target_id: ck(21),
            field: "cost",
            expected: "0.5",
            actual: "0.75",
          }),
          expect.objectContaining({
            kind: "missing",
            path: "instance/flavor_name/mappings/m1.large",
            ratecard_id: id(22),
            target_id: null,
            expected: "flat 0.1",
          }),
          expect.objectContaining({
            kind: "extra",
            path: "instance/flavor_name/mappings/m1.tiny",
            ratecard_id: null,
            target_id: ck(99),
            actual: "rate 2",
          }),
        ]),
      );
      expect(mine).toHaveLength(3);
    }
    expect(drift.counts).toMatchObject({ changed: 2, missing: 2, extra: 2 });
  });

  it("pairs through the id map: a value edited in CloudKitty is that rule changed", () => {
    const { target, idMap } = applied();
    target.services[0]!.fields[0]!.mappings.find((m) => m.value === "m1.large")!.value = "m1.huge";
    const drift = driftTarget({ target, ratecard: ratecard(), lastApplied: null, idMap });
    expect(drift.differences).toEqual([
      {
        kind: "changed",
        object_kind: "mapping",
        path: "instance/flavor_name/mappings/m1.large",
        ratecard_id: id(22),
        target_id: ck(22),
        field: "value",
        expected: "m1.large",
        actual: "m1.huge",
        against: "ratecard",
      },
    ]);
  });

  it("compares against Ratecard now apart from the last apply", () => {
    const { target, idMap } = applied();
    const now = ratecard();
    now.services[0]!.thresholds[0]!.cost = "0.8";
    const drift = driftTarget({ target, ratecard: now, lastApplied: ratecard(), idMap });
    expect(brief(drift)).toEqual([
      ["ratecard", "changed", "instance/thresholds/10", "cost", "0.8", "0.9"],
    ]);
    expect(driftTarget({ target, ratecard: now, lastApplied: null, idMap }).counts.changed).toBe(1);
  });

  it("compares at double precision when the target stores doubles, and says so", () => {
    const { target, idMap } = applied();
    target.services[0]!.fields[0]!.mappings.find((m) => m.value === "m1.large")!.cost =
      "0.1000000000000000055511151231";
    const exact = driftTarget({ target, ratecard: ratecard(), lastApplied: null, idMap });
    expect(brief(exact)).toEqual([
      [
        "ratecard",
        "changed",
        "instance/flavor_name/mappings/m1.large",
        "cost",
        "0.1",
        "0.1000000000000000055511151231",
      ],
    ]);
    const doubles = driftTarget({
      target,
      ratecard: ratecard(),
      lastApplied: null,
      idMap,
      doublePrecision: true,
    });
    expect(doubles.differences).toEqual([]);
    expect(doubles.doublePrecision).toBe(true);
  });

  it("reports duplicates, a disabled module with rules, unknown metrics and metadata", () => {
    const { target, idMap } = applied();
    target.modules = target.modules.map((m) => (m.id === "hashmap" ? { ...m, enabled: false } : m));
    target.services[0]!.fields.push({ id: ck(50), name: "colour", mappings: [], thresholds: [] });
    target.services.push({ id: ck(60), name: "gpu", mappings: [], thresholds: [], fields: [] });
    const duplicate: DuplicateRule = {
      kind: "mapping",
      parent: "instance/flavor_name",
      key: "m1.small",
      tenant_id: null,
      group_id: ck(1),
      kept: { id: ck(21), cost: "0.5", type: "flat" },
      dropped: [{ id: ck(70), cost: "0.6", type: "flat" }],
      costsDiffer: true,
    };
    const drift = driftTarget({
      target,
      ratecard: ratecard(),
      lastApplied: null,
      idMap,
      duplicates: [duplicate],
      metrics: [{ metric_id: "instance", metadata: ["flavor_name", "vcpus"] }],
    });
    const findings = drift.differences.filter((d) => !["missing", "extra"].includes(d.kind));
    expect(findings.map((d) => [d.kind, d.path, d.target_id, d.ratecard_id])).toEqual([
      ["duplicate", "instance/flavor_name/mappings/m1.small", ck(70), id(21)],
      ["module_disabled", "modules/hashmap", "hashmap", "hashmap"],
      ["unknown_metadata", "instance/colour", ck(50), null],
      ["unknown_metric", "gpu", ck(60), null],
    ]);
    expect(findings[0]).toMatchObject({ expected: "0.5", actual: "0.6" });
    // Module states are compared only when the target has them pushed.
    expect(drift.differences.some((d) => d.kind === "changed")).toBe(false);
    const pushed = driftTarget({
      target,
      ratecard: ratecard(),
      lastApplied: null,
      idMap,
      modules: true,
    });
    expect(brief(pushed)).toContainEqual([
      "ratecard",
      "changed",
      "modules/hashmap",
      "enabled",
      true,
      false,
    ]);
  });
});
