import { describe, expect, it } from "vitest";
import type { HashmapRuleSet, UsagePoint } from "../src/index.js";
import {
  RatingInputError,
  compileRuleSet,
  explainPoint,
  pricePoint,
  priceQuote,
} from "../src/index.js";
import { RuleSetBuilder } from "./rule-set-builder.js";

function price(rules: HashmapRuleSet, point: UsagePoint): string {
  return pricePoint(compileRuleSet(rules), point).toFixed();
}

describe("CloudKitty's documented volume example", () => {
  const rules = new RuleSetBuilder();
  const volume = rules.service("volume");
  rules.serviceMapping(volume, "flat", "0.001");
  rules.serviceThreshold(volume, "50", "rate", "0.98");
  rules.serviceThreshold(volume, "200", "rate", "0.95");
  const index = compileRuleSet(rules.build());

  it.each([
    ["20", "0.02"],
    ["50", "0.049"],
    ["80", "0.0784"],
    ["250", "0.2375"],
  ])("prices %s GiB at %s", (gib, expected) => {
    expect(pricePoint(index, { service: "volume", volume: gib }).toFixed()).toBe(expected);
  });
});

describe("mappings", () => {
  it("keeps the highest flat of a group instead of adding flats up", () => {
    const rules = new RuleSetBuilder();
    const compute = rules.service("compute");
    const flavor = rules.field(compute, "flavor");
    rules.serviceMapping(compute, "flat", "2");
    rules.fieldMapping(flavor, "large", "flat", "5");
    rules.fieldMapping(flavor, "tiny", "flat", "1");
    const built = rules.build();
    expect(price(built, { service: "compute", volume: "3", metadata: { flavor: "large" } })).toBe(
      "15",
    );
    expect(price(built, { service: "compute", volume: "3", metadata: { flavor: "tiny" } })).toBe(
      "6",
    );
  });

  it("multiplies the rates of a group together and with the flat", () => {
    const rules = new RuleSetBuilder();
    const compute = rules.service("compute");
    const flavor = rules.field(compute, "flavor");
    const region = rules.field(compute, "region");
    rules.serviceMapping(compute, "flat", "10");
    rules.fieldMapping(flavor, "large", "rate", "0.5");
    rules.fieldMapping(region, "eu", "rate", "3");
    expect(
      price(rules.build(), {
        service: "compute",
        volume: "2",
        metadata: { flavor: "large", region: "eu" },
      }),
    ).toBe("30");
  });

  it("matches field values on exact string equality of Python's str()", () => {
    const rules = new RuleSetBuilder();
    const compute = rules.service("compute");
    const vcpus = rules.field(compute, "vcpus");
    rules.fieldMapping(vcpus, "1", "flat", "7");
    rules.fieldMapping(vcpus, "0.5", "flat", "9");
    rules.fieldMapping(vcpus, "True", "flat", "11");
    const built = rules.build();
    const priceOf = (value: unknown): string =>
      price(built, { service: "compute", volume: "1", metadata: { vcpus: value } });
    expect(priceOf("1")).toBe("7");
    expect(priceOf(1)).toBe("7");
    expect(priceOf("1.0")).toBe("0");
    expect(priceOf(" 1")).toBe("0");
    expect(priceOf(0.5)).toBe("9");
    expect(priceOf(true)).toBe("11");
    expect(priceOf("true")).toBe("0");
    expect(priceOf({ nested: 1 })).toBe("0");
  });

  it("never applies a negative flat, since the group's flat starts at 0", () => {
    const rules = new RuleSetBuilder();
    const compute = rules.service("compute");
    const flavor = rules.field(compute, "flavor");
    rules.serviceMapping(compute, "flat", "-5");
    rules.fieldMapping(flavor, "large", "rate", "2");
    expect(
      price(rules.build(), { service: "compute", volume: "4", metadata: { flavor: "large" } }),
    ).toBe("0");
  });

  it("prices a rate-only group at 0: there is no flat to multiply", () => {
    const rules = new RuleSetBuilder();
    const compute = rules.service("compute");
    rules.serviceMapping(compute, "rate", "3");
    expect(price(rules.build(), { service: "compute", volume: "4" })).toBe("0");
  });

  it("counts the later of two service mappings in one group, not the higher", () => {
    const rules = new RuleSetBuilder();
    const compute = rules.service("compute");
    rules.serviceMapping(compute, "flat", "5");
    rules.serviceMapping(compute, "flat", "3");
    expect(price(rules.build(), { service: "compute", volume: "1" })).toBe("3");
  });

  it("multiplies two identical rate mappings once, not twice", () => {
    const rules = new RuleSetBuilder();
    const compute = rules.service("compute");
    const flavor = rules.field(compute, "flavor");
    rules.serviceMapping(compute, "flat", "1");
    rules.fieldMapping(flavor, "large", "rate", "2");
    rules.fieldMapping(flavor, "large", "rate", "2");
    expect(
      price(rules.build(), { service: "compute", volume: "1", metadata: { flavor: "large" } }),
    ).toBe("2");
  });
});

describe("thresholds", () => {
  it("applies a field threshold before the quantity", () => {
    const rules = new RuleSetBuilder();
    const compute = rules.service("compute");
    const ram = rules.field(compute, "ram");
    rules.serviceMapping(compute, "flat", "1");
    rules.fieldThreshold(ram, "2", "flat", "0.5");
    rules.fieldThreshold(ram, "8", "rate", "0.9");
    const built = rules.build();
    expect(price(built, { service: "compute", volume: "10", metadata: { ram: "3" } })).toBe("15");
    expect(price(built, { service: "compute", volume: "10", metadata: { ram: "8" } })).toBe("9");
  });

  it("applies a service threshold after the quantity", () => {
    const rules = new RuleSetBuilder();
    const compute = rules.service("compute");
    rules.serviceMapping(compute, "flat", "1");
    rules.serviceThreshold(compute, "5", "flat", "5");
    rules.serviceThreshold(compute, "50", "rate", "0.5");
    const built = rules.build();
    expect(price(built, { service: "compute", volume: "10" })).toBe("15");
    expect(price(built, { service: "compute", volume: "60" })).toBe("30");
  });

  it("applies only the highest level reached per group", () => {
    const rules = new RuleSetBuilder();
    const compute = rules.service("compute");
    const other = rules.group("other");
    rules.serviceMapping(compute, "flat", "1");
    rules.serviceMapping(compute, "flat", "1", { group: other });
    rules.serviceThreshold(compute, "1", "flat", "100");
    rules.serviceThreshold(compute, "5", "flat", "10");
    rules.serviceThreshold(compute, "1", "flat", "1000", { group: other });
    expect(price(rules.build(), { service: "compute", volume: "6" })).toBe("1022");
  });

  it("keeps the first processed threshold on equal levels: service thresholds come before field ones", () => {
    const rules = new RuleSetBuilder();
    const compute = rules.service("compute");
    const ram = rules.field(compute, "ram");
    rules.serviceMapping(compute, "flat", "1");
    rules.fieldThreshold(ram, "5", "flat", "100");
    rules.serviceThreshold(compute, "5", "rate", "0.5");
    expect(price(rules.build(), { service: "compute", volume: "10", metadata: { ram: "5" } })).toBe(
      "5",
    );
  });

  it("keeps the first field's threshold when two fields tie on a level", () => {
    const rules = new RuleSetBuilder();
    const compute = rules.service("compute");
    const ram = rules.field(compute, "ram");
    const disk = rules.field(compute, "disk");
    rules.serviceMapping(compute, "flat", "1");
    rules.fieldThreshold(disk, "5", "flat", "100");
    rules.fieldThreshold(ram, "5", "flat", "10");
    expect(
      price(rules.build(), { service: "compute", volume: "1", metadata: { disk: "9", ram: "9" } }),
    ).toBe("11");
  });

  it("lets service and field thresholds of a group compete for one slot by level alone", () => {
    const rules = new RuleSetBuilder();
    const compute = rules.service("compute");
    const ram = rules.field(compute, "ram");
    rules.serviceMapping(compute, "flat", "1");
    rules.serviceThreshold(compute, "10", "rate", "0.5");
    rules.fieldThreshold(ram, "100", "flat", "1");
    const built = rules.build();
    expect(price(built, { service: "compute", volume: "20", metadata: { ram: "150" } })).toBe("40");
    expect(price(built, { service: "compute", volume: "20", metadata: { ram: "50" } })).toBe("10");
  });

  it("never applies a level at or below -1, since the slot starts at -1", () => {
    const rules = new RuleSetBuilder();
    const compute = rules.service("compute");
    rules.serviceThreshold(compute, "-1", "flat", "100");
    expect(price(rules.build(), { service: "compute", volume: "0" })).toBe("0");
    const above = new RuleSetBuilder();
    const service = above.service("compute");
    above.serviceThreshold(service, "-0.5", "flat", "100");
    expect(price(above.build(), { service: "compute", volume: "0" })).toBe("100");
  });

  it("compares a field threshold with the exact value of a float, as Decimal(float) does", () => {
    const rules = new RuleSetBuilder();
    const compute = rules.service("compute");
    const size = rules.field(compute, "size");
    rules.serviceMapping(compute, "flat", "1");
    rules.fieldThreshold(size, "0.3", "flat", "100");
    rules.fieldThreshold(size, "0.1", "flat", "10");
    const built = rules.build();
    expect(price(built, { service: "compute", volume: "1", metadata: { size: "0.3" } })).toBe(
      "101",
    );
    // 0.3 as a double is 0.29999999999999998889...: it stays below level 0.3.
    expect(price(built, { service: "compute", volume: "1", metadata: { size: 0.3 } })).toBe("11");
    expect(price(built, { service: "compute", volume: "1", metadata: { size: true } })).toBe("101");
  });

  it("skips a field threshold whose metadata is not a number, and says so", () => {
    const rules = new RuleSetBuilder();
    const compute = rules.service("compute");
    const size = rules.field(compute, "size");
    rules.serviceMapping(compute, "flat", "1");
    rules.fieldMapping(size, "big", "rate", "2");
    rules.fieldThreshold(size, "0", "flat", "100");
    const index = compileRuleSet(rules.build());
    const point = { service: "compute", volume: "3", metadata: { size: "big" } };
    expect(pricePoint(index, point).toFixed()).toBe("6");
    expect(explainPoint(index, point).warnings).toEqual([
      'metadata size="big" is not a number: its field thresholds were skipped (CloudKitty would fail this point)',
    ]);
    expect(pricePoint(index, { ...point, metadata: { size: null } }).toFixed()).toBe("3");
    expect(pricePoint(index, { ...point, metadata: { size: "NaN" } }).toFixed()).toBe("3");
    expect(pricePoint(index, { ...point, metadata: { size: " +1_0e0 " } }).toFixed()).toBe("303");
  });
});

describe("groups", () => {
  it("sums independent groups", () => {
    const rules = new RuleSetBuilder();
    const compute = rules.service("compute");
    const licence = rules.group("licence");
    rules.serviceMapping(compute, "flat", "2");
    rules.serviceMapping(compute, "flat", "0.5", { group: licence });
    expect(price(rules.build(), { service: "compute", volume: "4" })).toBe("10");
  });

  it("puts rules without a group in the default group, which a group named _DEFAULT_ shares", () => {
    const rules = new RuleSetBuilder();
    const compute = rules.service("compute");
    const named = rules.group("_DEFAULT_");
    rules.serviceMapping(compute, "flat", "2");
    rules.serviceMapping(compute, "flat", "3", { group: named });
    const index = compileRuleSet(rules.build());
    const breakdown = explainPoint(index, { service: "compute", volume: "1" });
    expect(breakdown.total).toBe("3");
    expect(breakdown.groups).toHaveLength(1);
    expect(breakdown.groups[0]?.group_id).toBe(named);
  });
});

describe("tenant rules", () => {
  function tenantRules(): { rules: HashmapRuleSet; flatMapping: string; rateMapping: string } {
    const rules = new RuleSetBuilder();
    const compute = rules.service("compute");
    const flavor = rules.field(compute, "flavor");
    const licence = rules.group("licence");
    rules.serviceMapping(compute, "flat", "1");
    const flatMapping = rules.serviceMapping(compute, "flat", "2", { group: licence });
    const rateMapping = rules.serviceMapping(compute, "rate", "1.5", {
      group: licence,
      tenant: "acme",
    });
    rules.fieldMapping(flavor, "large", "flat", "5");
    rules.fieldMapping(flavor, "large", "flat", "4", { tenant: "acme" });
    return { rules: rules.build(), flatMapping, rateMapping };
  }

  it("replaces a global rule in the same slot instead of adding to it", () => {
    const { rules } = tenantRules();
    const point = { service: "compute", volume: "1", metadata: { flavor: "large" } };
    expect(price(rules, point)).toBe("7");
    expect(price(rules, { ...point, tenant: "acme" })).toBe("4");
  });

  it("makes a tenant's rate service mapping replace the global flat one, pricing its group at 0", () => {
    const { rules, flatMapping, rateMapping } = tenantRules();
    const breakdown = explainPoint(compileRuleSet(rules), {
      service: "compute",
      volume: "1",
      tenant: "acme",
    });
    const licenceGroup = breakdown.groups.find((group) => group.group_name === "licence");
    expect(licenceGroup).toMatchObject({
      flat: "0",
      rate: "1.5",
      price: "0",
      mapping_ids: [rateMapping],
    });
    expect(licenceGroup?.warnings).toEqual([
      `tenant acme rule ${rateMapping} overrides global rule ${flatMapping} (service mapping ${flatMapping})`,
    ]);
  });

  it("applies a tenant's rules to that tenant only", () => {
    const { rules } = tenantRules();
    expect(price(rules, { service: "compute", volume: "1", tenant: "other" })).toBe("3");
    expect(price(rules, { service: "compute", volume: "1", tenant: null })).toBe("3");
  });

  it("replaces a global threshold of the same level", () => {
    const rules = new RuleSetBuilder();
    const compute = rules.service("compute");
    rules.serviceMapping(compute, "flat", "1");
    rules.serviceThreshold(compute, "10", "flat", "100");
    rules.serviceThreshold(compute, "10.000", "flat", "1", { tenant: "acme" });
    const built = rules.build();
    expect(price(built, { service: "compute", volume: "10" })).toBe("110");
    expect(price(built, { service: "compute", volume: "10", tenant: "acme" })).toBe("11");
  });
});

describe("inputs", () => {
  it("prices an unknown service at 0", () => {
    const rules = new RuleSetBuilder();
    rules.serviceMapping(rules.service("compute"), "flat", "1");
    const index = compileRuleSet(rules.build());
    expect(pricePoint(index, { service: "image", volume: "5" }).toFixed()).toBe("0");
    expect(explainPoint(index, { service: "image", volume: "5" })).toMatchObject({
      service_known: false,
      groups: [],
      total: "0",
    });
  });

  it("reads the volume with Python's Decimal syntax and refuses anything not finite", () => {
    const rules = new RuleSetBuilder();
    rules.serviceMapping(rules.service("compute"), "flat", "1");
    const index = compileRuleSet(rules.build());
    expect(pricePoint(index, { service: "compute", volume: " 1_0 " }).toFixed()).toBe("10");
    expect(() => pricePoint(index, { service: "compute", volume: "Infinity" })).toThrow(
      RatingInputError,
    );
    expect(() => pricePoint(index, { service: "compute", volume: "ten" })).toThrow(
      RatingInputError,
    );
  });

  it("refuses rule sets that CloudKitty's database would not hold", () => {
    const rules = new RuleSetBuilder();
    const compute = rules.service("compute");
    rules.serviceMapping(compute, "flat", "0x10");
    expect(() => compileRuleSet(rules.build())).toThrow(
      /cost of mapping mapping-1 is not a decimal/,
    );
    const grouped = new RuleSetBuilder();
    grouped.serviceMapping(grouped.service("compute"), "flat", "1", { group: "missing" });
    expect(() => compileRuleSet(grouped.build())).toThrow(/unknown group missing/);
  });

  it("sums a quote's points, services in first-seen order", () => {
    const rules = new RuleSetBuilder();
    rules.serviceMapping(rules.service("compute"), "flat", "0.1");
    rules.serviceMapping(rules.service("volume"), "flat", "0.2");
    const index = compileRuleSet(rules.build());
    const points = [
      { service: "compute", volume: "1" },
      { service: "volume", volume: "2" },
      { service: "image", volume: "9" },
      { service: "compute", volume: "3" },
    ];
    expect(priceQuote(index, points).toFixed()).toBe("0.8");
    expect(priceQuote(index, []).toFixed()).toBe("0");
  });

  it("keeps decimals exact", () => {
    const rules = new RuleSetBuilder();
    const compute = rules.service("compute");
    rules.serviceMapping(compute, "flat", "0.1");
    rules.serviceThreshold(compute, "0", "flat", "0.2");
    expect(price(rules.build(), { service: "compute", volume: "1" })).toBe("0.3");
  });
});
