import { describe, expect, it } from "vitest";
import {
  COST_PRECISION,
  formatCost,
  formatLevel,
  LEVEL_PRECISION,
  parseDecimal,
} from "../src/decimal.js";

describe("formatCost and formatLevel", () => {
  it.each([
    ["0.5", "0.5000000000000000000000000000"],
    ["0.2", "0.2000000000000000000000000000"],
    ["10", "10.0000000000000000000000000000"],
    ["-1.25", "-1.2500000000000000000000000000"],
    ["1.00000000000000000000000001", "1.0000000000000000000000000100"],
    ["999999999999.9999999999999999999999999999", "999999999999.9999999999999999999999999999"],
  ])("cost %s renders as %s", (input, expected) => {
    expect(formatCost(input)).toBe(expected);
  });

  it.each([
    ["10", "10.00000000"],
    ["10.0", "10.00000000"],
    ["1e1", "10.00000000"],
    [" 3 ", "3.00000000"],
    ["+4", "4.00000000"],
    [".5", "0.50000000"],
  ])("level %j renders as %s", (input, expected) => {
    expect(formatLevel(input)).toBe(expected);
  });

  it("gives one rendering to equal values written differently", () => {
    expect(formatLevel("10")).toBe(formatLevel("10.000"));
    expect(formatCost("-0")).toBe(formatCost("0"));
  });

  it("takes JSON numbers as their shortest exact text", () => {
    expect(formatCost(0.1)).toBe("0.1000000000000000000000000000");
    expect(formatLevel(50)).toBe("50.00000000");
  });
});

describe("parseDecimal refuses what cannot be stored exactly", () => {
  it.each([
    "NaN",
    "nan",
    "Infinity",
    "-Infinity",
    "inf",
    "abc",
    "",
    "1,5",
    "0x10",
    "1_0",
    "1.2.3",
    "--1",
  ])("refuses %j", (input) => {
    expect(parseDecimal(input, COST_PRECISION).ok).toBe(false);
  });

  it.each([Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY])(
    "refuses the number %s",
    (input) => {
      expect(parseDecimal(input, COST_PRECISION).ok).toBe(false);
    },
  );

  it.each([true, null, {}, [], undefined])("refuses %j, which is not a number", (input) => {
    expect(parseDecimal(input, COST_PRECISION).ok).toBe(false);
  });

  it("refuses more fractional digits than the column holds, rather than rounding", () => {
    expect(parseDecimal("0.00000000000000000000000000001", COST_PRECISION)).toEqual({
      ok: false,
      reason: "More than 28 fractional digits cannot be stored exactly.",
    });
    expect(parseDecimal("1.123456789", LEVEL_PRECISION).ok).toBe(false);
    // Trailing zeros carry no precision, so they are fine.
    expect(parseDecimal("1.50000000000000000000000000000000", COST_PRECISION).ok).toBe(true);
  });

  it("refuses more than 12 integer digits", () => {
    expect(parseDecimal("1000000000000", COST_PRECISION).ok).toBe(false);
    expect(parseDecimal("1e12", LEVEL_PRECISION).ok).toBe(false);
    expect(parseDecimal("-999999999999", COST_PRECISION).ok).toBe(true);
  });
});
