import { Decimal } from "decimal.js";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { HashmapMapping, HashmapRuleSet, HashmapThreshold, UsagePoint } from "../src/index.js";
import { compileRuleSet, explainPoint, pricePoint } from "../src/index.js";
import { plainMetadataValue, pointArbitrary, ruleSetArbitrary } from "./arbitraries.js";

/** Exact enough for the short costs the generator uses: nothing here ever rounds. */
const Exact = Decimal.clone({ precision: 1000 });

/**
 * An independent, deliberately naive hashmap pricer written from the rules in
 * the package README: straight loops over the raw rule lists in load order,
 * no index, no Python emulation of dict order or of 28-digit rounding.
 */
function referencePrice(rules: HashmapRuleSet, point: UsagePoint): Decimal {
  const service = rules.services.find((candidate) => candidate.name === point.service);
  if (!service) return new Exact(0);
  const tenant = point.tenant ?? null;
  const metadata = point.metadata ?? {};
  const quantity = new Exact(point.volume);
  const groupOf = (rule: { group_id?: string | null }): string =>
    rules.groups.find((group) => group.group_id === rule.group_id)?.name ?? "_DEFAULT_";

  // Global rules load first, then the tenant's; the last rule loaded into a slot wins it.
  function winners<R extends { tenant_id?: string | null }>(
    candidates: R[],
    slot: (rule: R) => string,
  ): R[] {
    const loaded = [
      ...candidates.filter((rule) => rule.tenant_id === null),
      ...candidates.filter((rule) => tenant !== null && rule.tenant_id === tenant),
    ];
    return loaded.filter(
      (rule, position) => !loaded.slice(position + 1).some((later) => slot(later) === slot(rule)),
    );
  }
  const mappingSlot = (mapping: HashmapMapping): string =>
    `${groupOf(mapping)}|${mapping.value ?? ""}`;
  const thresholdSlot = (threshold: HashmapThreshold): string =>
    `${groupOf(threshold)}|${new Exact(threshold.level).toString()}`;

  const matched: HashmapMapping[] = winners(
    rules.mappings.filter((mapping) => mapping.service_id === service.service_id),
    mappingSlot,
  );
  const reached: { threshold: HashmapThreshold; scope: "service" | "field" }[] = [];
  for (const threshold of winners(
    rules.thresholds.filter((t) => t.service_id === service.service_id),
    thresholdSlot,
  )) {
    if (quantity.gte(threshold.level)) reached.push({ threshold, scope: "service" });
  }
  for (const field of rules.fields.filter(
    (candidate) => candidate.service_id === service.service_id,
  )) {
    if (!(field.name in metadata)) continue;
    const value = metadata[field.name];
    const fieldMappings = winners(
      rules.mappings.filter((mapping) => mapping.field_id === field.field_id),
      mappingSlot,
    );
    matched.push(...fieldMappings.filter((mapping) => mapping.value === referenceText(value)));
    const measured = referenceNumber(value);
    if (measured === null) continue;
    for (const threshold of winners(
      rules.thresholds.filter((t) => t.field_id === field.field_id),
      thresholdSlot,
    )) {
      if (measured.gte(threshold.level)) reached.push({ threshold, scope: "field" });
    }
  }

  const groupNames = new Set([
    ...matched.map(groupOf),
    ...reached.map(({ threshold }) => groupOf(threshold)),
  ]);
  let total = new Exact(0);
  for (const groupName of groupNames) {
    const mappings = matched.filter((mapping) => groupOf(mapping) === groupName);
    let flat = Exact.max(0, ...mappings.filter((m) => m.type === "flat").map((m) => m.cost));
    let rate = mappings
      .filter((m) => m.type === "rate")
      .reduce((product, m) => product.times(m.cost), new Exact(1));
    let best: (typeof reached)[number] | undefined;
    for (const candidate of reached.filter(({ threshold }) => groupOf(threshold) === groupName)) {
      const bestLevel = best ? best.threshold.level : "-1";
      if (new Exact(candidate.threshold.level).gt(bestLevel)) best = candidate;
    }
    if (best?.scope === "field") {
      if (best.threshold.type === "flat") flat = flat.plus(best.threshold.cost);
      else rate = rate.times(best.threshold.cost);
    }
    let price = rate.times(flat).times(quantity);
    if (best?.scope === "service") {
      price =
        best.threshold.type === "flat"
          ? price.plus(best.threshold.cost)
          : price.times(best.threshold.cost);
    }
    total = total.plus(price);
  }
  return total;
}

function referenceText(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (typeof value === "number") return String(value);
  if (typeof value === "boolean") return value ? "True" : "False";
  return value === null ? "None" : undefined;
}

function referenceNumber(value: unknown): Decimal | null {
  if (typeof value === "string") return /^-?\d+(\.\d+)?$/.test(value) ? new Exact(value) : null;
  if (typeof value === "number") return new Exact(value);
  if (typeof value === "boolean") return new Exact(value ? 1 : 0);
  return null;
}

describe("pricing agrees with a naive reference implementation", () => {
  const scenario = fc.record({
    rules: ruleSetArbitrary(),
    points: fc.array(pointArbitrary(plainMetadataValue), { minLength: 1, maxLength: 8 }),
  });

  it("on random rule sets and usage points", () => {
    fc.assert(
      fc.property(scenario, ({ rules, points }) => {
        const index = compileRuleSet(rules);
        for (const point of points) {
          expect(pricePoint(index, point).toFixed()).toBe(referencePrice(rules, point).toFixed());
        }
      }),
      { numRuns: 1500 },
    );
  });

  it("explains the same total as it prices, as the sum of its groups", () => {
    fc.assert(
      fc.property(scenario, ({ rules, points }) => {
        const index = compileRuleSet(rules);
        for (const point of points) {
          const breakdown = explainPoint(index, point);
          const groupSum = breakdown.groups.reduce(
            (sum, group) => sum.plus(group.price),
            new Exact(0),
          );
          expect(breakdown.total).toBe(pricePoint(index, point).toFixed());
          expect(groupSum.toFixed()).toBe(breakdown.total);
        }
      }),
      { numRuns: 300 },
    );
  });
});
