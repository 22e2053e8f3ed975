import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { RatingIndex, UsagePoint } from "../src/index.js";
import { compileRuleSet, pricePoint, priceQuote } from "../src/index.js";
import { decimalOfExact } from "../src/exact.js";
import { priceExactly } from "../src/fast-price.js";
import { pricePointInDecimal, priceQuoteInDecimal } from "../src/price.js";
import {
  type CostArbitraries,
  MAPPING_VALUES,
  VOLUMES,
  longCosts,
  plainMetadataValue,
  pointArbitrary,
  ruleSetArbitrary,
  shortCosts,
} from "./arbitraries.js";
import { RuleSetBuilder } from "./rule-set-builder.js";

/** 10 to 16 digits, some of them decimals: two of them make a product of about 28 digits. */
const wideDecimal: fc.Arbitrary<string> = fc
  .tuple(fc.bigInt({ min: 10n ** 9n, max: 10n ** 16n }), fc.integer({ min: 0, max: 16 }))
  .map(([digits, decimals]) => {
    const text = digits.toString().padStart(decimals + 1, "0");
    return decimals === 0 ? text : `${text.slice(0, -decimals)}.${text.slice(-decimals)}`;
  });

/**
 * Costs from 1 to 20 digits: products cross 2^53 (the BigInt side of the fast path) and 28
 * digits (decimal.js) often, and land on either side of 28 digits.
 */
const mixedCosts: CostArbitraries = {
  flat: fc.oneof(
    shortCosts.flat,
    fc.constantFrom("12.345678", "99.999999", "0.000001", "123456789.123456789", "-7.25"),
    wideDecimal,
  ),
  rate: fc.oneof(
    shortCosts.rate,
    fc.constantFrom("1.2345", "0.9999", "1.000000001", "3.14159265358979", "0.5"),
    wideDecimal,
  ),
};

const volumes = fc.oneof(
  fc.constantFrom(...VOLUMES, "123.456", "0.001", "999999.999", "1e3", "-2", "-0"),
  wideDecimal,
);

const metadataValues = fc.oneof(
  plainMetadataValue,
  fc.constantFrom(...MAPPING_VALUES, "1e1", " 3 ", "1_0", "Infinity", "-inf", "NaN", "2.50"),
  fc.double({ noNaN: true, min: -1e30, max: 1e30 }),
  fc.constantFrom(0.1, 0.3, 1e21, -0, Number.POSITIVE_INFINITY, Number.NaN, 2n ** 70n),
);

const scenario = fc.record({
  rules: fc.oneof(
    ruleSetArbitrary({ costs: mixedCosts, maxMappings: 24, maxThresholds: 10 }),
    ruleSetArbitrary({ costs: longCosts, maxMappings: 24, maxThresholds: 10 }),
    ruleSetArbitrary(),
  ),
  points: fc.array(
    fc
      .record({ point: pointArbitrary(metadataValues), volume: volumes })
      .map(({ point, volume }) => ({ ...point, volume })),
    { minLength: 1, maxLength: 12 },
  ),
});

describe("the exact fast path prices as decimal.js does", () => {
  it("on every point it prices, and pricePoint falls back where it does not", () => {
    let exactPoints = 0;
    let allPoints = 0;
    fc.assert(
      fc.property(scenario, ({ rules, points }) => {
        const index = compileRuleSet(rules);
        for (const point of points) {
          const inDecimal = pricePointInDecimal(index, point).toFixed();
          const exact = priceExactly(index, point);
          allPoints += 1;
          if (exact !== null) {
            exactPoints += 1;
            expect(decimalOfExact(exact).toFixed()).toBe(inDecimal);
          }
          expect(pricePoint(index, point).toFixed()).toBe(inDecimal);
        }
      }),
      { numRuns: 3000 },
    );
    // Not a vacuous agreement: most points take the fast path, some fall back.
    expect(exactPoints / allPoints).toBeGreaterThan(0.7);
    expect(exactPoints).toBeLessThan(allPoints);
  });

  it("on whole quotes, including running sums that round", () => {
    fc.assert(
      fc.property(scenario, ({ rules, points }) => {
        const index = compileRuleSet(rules);
        const quote = points.map((point) => ({ ...point, tenant: null }));
        expect(priceQuote(index, quote).toFixed()).toBe(
          priceQuoteInDecimal(index, quote).toFixed(),
        );
      }),
      { numRuns: 1500 },
    );
  });

  it("raises the same errors", () => {
    const index = compute();
    for (const volume of ["ten", "Infinity", "NaN", ""]) {
      const point = { service: "compute", volume };
      expect(priceExactly(index, point)).toBeNull();
      expect(() => pricePoint(index, point)).toThrow(/volume is not a finite decimal/);
      expect(() => priceQuote(index, [point])).toThrow(/volume is not a finite decimal/);
    }
  });

  it("leaves a product CloudKitty rounds to decimal.js", () => {
    const index = compute("1.0000000000000000000000000001");
    const point = { service: "compute", volume: "3" };
    expect(priceExactly(index, point)).toBeNull();
    // 3.0000000000000000000000000003 rounded to 28 digits.
    expect(pricePoint(index, point).toFixed()).toBe("3");
  });

  it("switches a quote to decimal.js once its running sum needs rounding", () => {
    const index = compute("1");
    const points: UsagePoint[] = [
      { service: "compute", volume: "1000000000000000000000000000" },
      { service: "compute", volume: "0.5" },
      { service: "compute", volume: "0.5" },
    ];
    for (const point of points) expect(priceExactly(index, point)).not.toBeNull();
    // 10^27 + 0.5 rounds half-even to 10^27 twice; exact sums would give 10^27 + 1.
    expect(priceQuote(index, points).toFixed()).toBe("1000000000000000000000000000");
    expect(priceQuoteInDecimal(index, points).toFixed()).toBe("1000000000000000000000000000");
  });
});

/** A service "compute" with one flat service mapping of `cost`. */
function compute(cost = "2"): RatingIndex {
  const rules = new RuleSetBuilder();
  rules.serviceMapping(rules.service("compute"), "flat", cost);
  return compileRuleSet(rules.build());
}
