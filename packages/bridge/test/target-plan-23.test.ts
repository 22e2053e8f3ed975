import { describe, expect, it } from "vitest";
import type { CloudKittyRuleSet } from "@ratecard/cloudkitty";
import type { RuleSetDocument, RuleSetMapping } from "@ratecard/ruleset";
import {
  convertRuleSet,
  isEmptyTargetPlan,
  planTarget,
  SUPERSEDE_DELAY_MS,
  type TargetPlanOptions,
} from "../src/index.js";

// Planning for a CloudKitty 23+ target from two hand-built rule sets (no CloudKitty needed):
// validity dates on mappings and scripts, what CloudKitty 23 lets change on a started rule, and
// its history left alone.

const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`;
const NOW = new Date("2026-11-26T12:00:00Z");
const at = (offsetMs: number) => new Date(NOW.getTime() + offsetMs).toISOString().slice(0, 19);
const HOUR = 3600_000;
const DAY = 24 * HOUR;

function mapping(n: number, extra: Partial<RuleSetMapping> = {}): RuleSetMapping {
  return {
    id: id(n),
    value: "m1.small",
    type: "flat",
    cost: "0.5",
    tenant_id: null,
    group_id: null,
    start: at(-DAY),
    end: null,
    description: null,
    ...extra,
  };
}

function doc(
  mappings: RuleSetMapping[],
  scripts: RuleSetDocument["scripts"] = [],
  thresholds: RuleSetDocument["services"][number]["thresholds"] = [],
): RuleSetDocument {
  return {
    format: "ratecard.ruleset",
    version: 2,
    revision: "",
    modules: [],
    groups: [],
    services: [
      {
        id: id(10),
        name: "compute",
        mappings: [],
        thresholds,
        fields: [{ id: id(11), name: "flavor", mappings, thresholds: [] }],
      },
    ],
    scripts,
  };
}

const options = (extra: Partial<TargetPlanOptions> = {}): TargetPlanOptions => ({
  prune: true,
  generation: "23+",
  now: NOW,
  ...extra,
});
const brief = (plan: ReturnType<typeof planTarget>) =>
  plan.operations.map((o) => [o.op, o.kind, o.path]);
const PATH = "compute/flavor/mappings/m1.small";

describe("planTarget for CloudKitty 23+", () => {
  it("does not compare the start of a rule that has started on both sides", () => {
    const plan = planTarget(
      doc([mapping(21, { start: at(-30 * DAY) })]),
      doc([mapping(21, { start: at(-HOUR) })]),
      options(),
    );
    expect(plan.operations).toEqual([]);
    expect(isEmptyTargetPlan(plan)).toBe(true);
  });

  it("supersedes a started rule whose price changed: the old ends at T, Ratecard's starts at T", () => {
    const plan = planTarget(doc([mapping(21, { cost: "0.75" })]), doc([mapping(21)]), options());
    expect(brief(plan)).toEqual([["supersede", "mapping", PATH]]);
    const [op] = plan.operations;
    expect(op!.changes).toEqual(["cost"]);
    expect(op!.target_id).toBe(id(21));
    // T: the apply's moment plus the delay (as it would be if applied at the plan's moment).
    expect(op!.after).toMatchObject({ cost: "0.75", start: at(SUPERSEDE_DELAY_MS) });
    expect(op!.reason).toContain("ends at T");
    expect(isEmptyTargetPlan(plan)).toBe(false);
    expect(plan.counts.supersede).toBe(1);
  });

  it("takes Ratecard's start as T when it is later than the apply", () => {
    const plan = planTarget(
      doc([mapping(21, { cost: "0.75", start: at(DAY) })]),
      doc([mapping(21)]),
      options(),
    );
    expect(brief(plan)).toEqual([["supersede", "mapping", PATH]]);
    expect(plan.operations[0]!.after).toMatchObject({ start: at(DAY) });
  });

  it("updates a rule that has not started in place (cost, dates), and replaces it for a new type", () => {
    const theirs = doc([mapping(21, { start: at(DAY), end: at(2 * DAY) })]);
    const cost = planTarget(
      doc([mapping(21, { start: at(DAY), end: at(3 * DAY), cost: "0.6" })]),
      theirs,
      options(),
    );
    expect(brief(cost)).toEqual([["update", "mapping", PATH]]);
    expect(cost.operations[0]!.changes).toEqual(["cost", "end"]);
    const type = planTarget(
      doc([mapping(21, { start: at(DAY), end: at(2 * DAY), type: "rate" })]),
      theirs,
      options(),
    );
    expect(brief(type)).toEqual([["replace", "mapping", PATH]]);
    expect(type.operations[0]!.reason).toContain("has not started");
  });

  it("sends an end as an update; an end Ratecard has passed becomes the apply's moment", () => {
    const future = planTarget(doc([mapping(21, { end: at(DAY) })]), doc([mapping(21)]), options());
    expect(brief(future)).toEqual([["update", "mapping", PATH]]);
    expect(future.operations[0]).toMatchObject({
      changes: ["end"],
      after: { cost: "0.5", end: at(DAY) },
    });
    const passed = planTarget(
      doc([mapping(21, { end: at(-HOUR) })]),
      doc([mapping(21)]),
      options(),
    );
    expect(passed.operations[0]).toMatchObject({
      op: "update",
      after: { end: at(SUPERSEDE_DELAY_MS) },
    });
    expect(passed.operations[0]!.reason).toContain("refuses an end in the past");
  });

  it("lets a started rule with an end bill until then, Ratecard's following from then", () => {
    const plan = planTarget(
      doc([mapping(21, { cost: "0.75" })]),
      doc([mapping(21, { end: at(DAY) })]),
      options(),
    );
    expect(brief(plan)).toEqual([["create", "mapping", PATH]]);
    expect(plan.operations[0]!.after).toMatchObject({ cost: "0.75", start: at(DAY) });
    // Ratecard's own ends before then: nothing CloudKitty 23 allows.
    const frozen = planTarget(
      doc([mapping(21, { cost: "0.75", end: at(HOUR) })]),
      doc([mapping(21, { end: at(DAY) })]),
      options(),
    );
    expect(brief(frozen)).toEqual([["frozen", "mapping", PATH]]);
    expect(isEmptyTargetPlan(frozen)).toBe(true);
  });

  it("keeps CloudKitty's ended rules as history: not compared, deleted or reported", () => {
    const ended = mapping(50, { value: "m1.old", start: at(-9 * DAY), end: at(-DAY) });
    const plan = planTarget(doc([mapping(21)]), doc([mapping(21), ended]), options());
    expect(plan.operations).toEqual([]);
    // Its Ratecard rule runs on: a new one follows it.
    const follow = planTarget(
      doc([mapping(21, { end: null })]),
      doc([mapping(21, { end: at(-HOUR) })]),
      options(),
    );
    expect(brief(follow)).toEqual([["create", "mapping", PATH]]);
    expect(follow.operations[0]!.reason).toContain("ended");
  });

  it("creates a scheduled rule with its dates and leaves out an ended one CloudKitty never had", () => {
    const plan = planTarget(
      doc([
        mapping(21, { value: "m1.next", start: at(DAY), end: at(2 * DAY), name: "next" }),
        mapping(22, { value: "m1.gone", start: at(-9 * DAY), end: at(-DAY) }),
      ]),
      doc([]),
      options(),
    );
    expect(brief(plan)).toEqual([["create", "mapping", "compute/flavor/mappings/m1.next"]]);
    expect(plan.operations[0]!.after).toMatchObject({ start: at(DAY), end: at(2 * DAY) });
  });

  it("plans thresholds as before 23 (CloudKitty 23's thresholds have no dates)", () => {
    const threshold = {
      id: id(30),
      level: "10",
      type: "rate" as const,
      cost: "0.9",
      tenant_id: null,
      group_id: null,
    };
    const plan = planTarget(
      doc([], [], [{ ...threshold, cost: "0.8" }]),
      doc([], [], [threshold]),
      options(),
    );
    expect(brief(plan)).toEqual([["update", "threshold", "compute/thresholds/10"]]);
  });

  it("supersedes a started script only under a new name (CloudKitty keeps script names unique)", () => {
    const script = { id: id(40), name: "discount", data: "a = 1", start: at(-DAY), end: null };
    const same = planTarget(doc([], [{ ...script, data: "a = 2" }]), doc([], [script]), options());
    expect(brief(same)).toEqual([["frozen", "script", "scripts/discount"]]);
    const renamed = planTarget(
      doc([], [{ ...script, name: "discount-2", data: "a = 2" }]),
      doc([], [script]),
      options(),
    );
    expect(brief(renamed)).toEqual([["supersede", "script", "scripts/discount-2"]]);
  });

  it("leaves dates alone before 23", () => {
    const plan = planTarget(doc([mapping(21, { start: at(DAY) })]), doc([mapping(21)]), {
      prune: true,
    });
    expect(plan.operations).toEqual([]);
  });
});

describe("convertRuleSet with lifecycle (CloudKitty 23+)", () => {
  const row = (n: number, extra: Record<string, unknown>) => ({
    mapping_id: id(n),
    value: "m1.small",
    type: "flat" as const,
    cost: "0.5",
    service_id: null,
    field_id: id(11),
    group_id: null,
    tenant_id: null,
    name: `r${n}`,
    description: null,
    start: null,
    end: null,
    ...extra,
  });
  const source = (mappings: ReturnType<typeof row>[]): CloudKittyRuleSet => ({
    endpoint: "http://ck",
    modules: [],
    groups: [],
    services: [
      {
        service_id: id(10),
        name: "compute",
        mappings: [],
        thresholds: [],
        fields: [
          {
            field_id: id(11),
            name: "flavor",
            service_id: id(10),
            mappings,
            thresholds: [],
          },
        ],
      },
    ],
    scripts: [],
    requestCount: 0,
  });

  it("lists a rule a later one follows as superseded, not as a duplicate, and keeps the dates", () => {
    const { document, report } = convertRuleSet(
      source([
        row(1, { start: "2026-11-01T00:00:00", end: "2026-11-26T10:00:00.250000" }),
        row(2, { cost: "0.75", start: "2026-11-26T10:00:00.250000" }),
      ]),
      { lifecycle: true },
    );
    expect(report.duplicates).toEqual([]);
    expect(report.superseded).toEqual([
      expect.objectContaining({ id: id(1), by: id(2), end: "2026-11-26T10:00:00.250000" }),
    ]);
    const kept = document.services[0]!.fields[0]!.mappings;
    expect(kept).toHaveLength(1);
    expect(kept[0]).toMatchObject({
      id: id(2),
      cost: "0.75",
      start: "2026-11-26T10:00:00.250000",
      end: null,
    });
  });

  it("still reports rules whose periods overlap as duplicates", () => {
    const { report } = convertRuleSet(
      source([
        row(1, { start: "2026-11-01T00:00:00" }),
        row(2, { cost: "0.75", start: "2026-11-02T00:00:00" }),
      ]),
      { lifecycle: true },
    );
    expect(report.duplicates).toHaveLength(1);
    expect(report.superseded).toEqual([]);
  });
});
