import { describe, expect, it } from "vitest";
import type { RuleSetWarning } from "../src/index.js";
import { compileRuleSet, explainPoint, findRuleSetWarnings } from "../src/index.js";
import { RuleSetBuilder } from "./rule-set-builder.js";

function codes(warnings: readonly RuleSetWarning[]): string[] {
  return warnings.map((warning) => warning.code);
}

describe("findRuleSetWarnings", () => {
  it("reports a group whose rate rules have no flat to multiply", () => {
    const rules = new RuleSetBuilder();
    const compute = rules.service("compute");
    const flavor = rules.field(compute, "flavor");
    const licence = rules.group("licence");
    rules.serviceMapping(compute, "flat", "1");
    const rate = rules.fieldMapping(flavor, "large", "rate", "2", { group: licence });
    expect(findRuleSetWarnings(rules.build())).toEqual([
      {
        code: "rate-without-flat",
        message:
          "group licence of service compute has rate rules but no positive flat mapping or flat field threshold: the rates multiply 0, so the group prices nothing",
        service_id: compute,
        group_id: licence,
        tenant_id: null,
        rule_ids: [rate],
      },
    ]);
  });

  it("reports a tenant's rate mapping that replaces the global flat one, once per cause", () => {
    const rules = new RuleSetBuilder();
    const compute = rules.service("compute");
    const flat = rules.serviceMapping(compute, "flat", "2");
    const rate = rules.serviceMapping(compute, "rate", "1.5", { tenant: "acme" });
    const warnings = findRuleSetWarnings(rules.build());
    expect(codes(warnings)).toEqual(["rate-without-flat", "tenant-overrides-global"]);
    expect(warnings[0]).toMatchObject({ tenant_id: "acme", rule_ids: [rate] });
    expect(warnings[1]).toMatchObject({
      tenant_id: "acme",
      rule_ids: [rate, flat],
      message: `service compute, group _DEFAULT_: tenant acme rule ${rate} overrides global rule ${flat} (service mapping ${flat})`,
    });
  });

  it("does not repeat a global problem for every tenant", () => {
    const rules = new RuleSetBuilder();
    const compute = rules.service("compute");
    const flavor = rules.field(compute, "flavor");
    rules.serviceMapping(compute, "rate", "2");
    rules.fieldMapping(flavor, "large", "rate", "3", { tenant: "acme" });
    expect(codes(findRuleSetWarnings(rules.build()))).toEqual(["rate-without-flat"]);
  });

  it("reports two rules in one slot where only the later counts", () => {
    const rules = new RuleSetBuilder();
    const compute = rules.service("compute");
    const first = rules.serviceMapping(compute, "flat", "5");
    const second = rules.serviceMapping(compute, "flat", "3");
    expect(findRuleSetWarnings(rules.build())).toMatchObject([
      { code: "slot-replaced", rule_ids: [second, first], tenant_id: null },
    ]);
  });

  it("reports flat mappings from several sources of one group, which do not add up", () => {
    const rules = new RuleSetBuilder();
    const compute = rules.service("compute");
    const flavor = rules.field(compute, "flavor");
    const serviceFlat = rules.serviceMapping(compute, "flat", "1");
    const large = rules.fieldMapping(flavor, "large", "flat", "5");
    const small = rules.fieldMapping(flavor, "small", "flat", "2");
    expect(findRuleSetWarnings(rules.build())).toMatchObject([
      { code: "flats-do-not-add", rule_ids: [serviceFlat, large, small] },
    ]);
  });

  it("reports service and field thresholds competing for one slot", () => {
    const rules = new RuleSetBuilder();
    const compute = rules.service("compute");
    const ram = rules.field(compute, "ram");
    rules.serviceMapping(compute, "flat", "1");
    rules.serviceThreshold(compute, "10", "rate", "0.9");
    rules.fieldThreshold(ram, "4", "flat", "1");
    expect(codes(findRuleSetWarnings(rules.build()))).toEqual(["thresholds-compete"]);
  });

  it("reports rules that can never apply and a group named like the default group", () => {
    const rules = new RuleSetBuilder();
    const compute = rules.service("compute");
    const named = rules.group("_DEFAULT_");
    rules.serviceMapping(compute, "flat", "-1", { group: named });
    rules.serviceThreshold(compute, "-1", "flat", "5");
    expect(codes(findRuleSetWarnings(rules.build()))).toEqual([
      "group-named-default",
      "flat-never-applies",
      "threshold-never-applies",
    ]);
  });

  it("finds nothing to say about a sound rule set", () => {
    const rules = new RuleSetBuilder();
    const volume = rules.service("volume");
    rules.serviceMapping(volume, "flat", "0.001");
    rules.serviceThreshold(volume, "50", "rate", "0.98");
    rules.serviceThreshold(volume, "200", "rate", "0.95");
    expect(findRuleSetWarnings(rules.build())).toEqual([]);
  });
});

describe("explainPoint", () => {
  it("details each group in CloudKitty's order", () => {
    const rules = new RuleSetBuilder();
    const compute = rules.service("compute");
    const flavor = rules.field(compute, "flavor");
    const ram = rules.field(compute, "ram");
    const licence = rules.group("licence");
    const flat = rules.serviceMapping(compute, "flat", "2");
    const rate = rules.fieldMapping(flavor, "large", "rate", "1.5");
    const fee = rules.serviceMapping(compute, "flat", "0.25", { group: licence });
    const threshold = rules.fieldThreshold(ram, "4", "flat", "1");
    const breakdown = explainPoint(compileRuleSet(rules.build()), {
      service: "compute",
      volume: "2",
      metadata: { flavor: "large", ram: 8 },
    });
    expect(breakdown).toEqual({
      service: "compute",
      tenant: null,
      service_known: true,
      groups: [
        {
          group_id: null,
          group_name: "_DEFAULT_",
          flat: "2",
          rate: "1.5",
          threshold: {
            threshold_id: threshold,
            level: "4",
            type: "flat",
            cost: "1",
            kind: "field",
            field_name: "ram",
          },
          price: "9",
          mapping_ids: [flat, rate],
          warnings: [],
        },
        {
          group_id: licence,
          group_name: "licence",
          flat: "0.25",
          rate: "1",
          threshold: null,
          price: "0.5",
          mapping_ids: [fee],
          warnings: [],
        },
      ],
      total: "9.5",
      warnings: [],
    });
  });

  it("says which reached threshold lost the group's one slot", () => {
    const rules = new RuleSetBuilder();
    const compute = rules.service("compute");
    const ram = rules.field(compute, "ram");
    rules.serviceMapping(compute, "flat", "1");
    const serviceThreshold = rules.serviceThreshold(compute, "5", "rate", "0.5");
    const fieldThreshold = rules.fieldThreshold(ram, "5", "flat", "100");
    const breakdown = explainPoint(compileRuleSet(rules.build()), {
      service: "compute",
      volume: "10",
      metadata: { ram: "5" },
    });
    expect(breakdown.groups[0]?.threshold?.threshold_id).toBe(serviceThreshold);
    expect(breakdown.groups[0]?.warnings).toEqual([
      `threshold ${fieldThreshold} (field ram threshold ${fieldThreshold} level 5) was reached but the group's one threshold slot went to ${serviceThreshold} (service threshold ${serviceThreshold} level 5): it ties with it and was processed later`,
    ]);
  });
});
