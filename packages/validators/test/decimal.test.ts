import { uniformInt } from "pure-rand/distribution/uniformInt";
import { xoroshiro128plus } from "pure-rand/generator/xoroshiro128plus";
import { describe, expect, it } from "vitest";
import {
  COST_PRECISION,
  formatCost,
  formatLevel,
  LEVEL_PRECISION,
  parseDecimal,
  parseDecimalByDecimalJs,
  type DecimalPrecision,
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

describe("parseDecimal's plain path answers as decimal.js does", () => {
  const PRECISIONS: DecimalPrecision[] = [
    COST_PRECISION,
    LEVEL_PRECISION,
    { integerDigits: 28, fractionDigits: 28 },
    { integerDigits: 3, fractionDigits: 0 },
    { integerDigits: 1, fractionDigits: 2 },
  ];

  function expectSameAnswer(input: unknown): void {
    for (const precision of PRECISIONS) {
      const expected = parseDecimalByDecimalJs(input, precision);
      const actual = parseDecimal(input, precision);
      if (JSON.stringify(actual) !== JSON.stringify(expected)) {
        expect({ input, precision, actual }).toEqual({ input, precision, actual: expected });
      }
    }
  }

  it("on every string of up to five characters from digits, signs, points, e and space", () => {
    const alphabet = ["0", "1", "9", "-", "+", ".", "e", " "];
    let texts = [""];
    for (let length = 1; length <= 5; length++) {
      texts = texts.flatMap((text) => alphabet.map((character) => text + character));
      for (const text of texts) expectSameAnswer(text);
    }
  });

  it("on generated decimals around every limit", () => {
    // Seeded (pure-rand's xoroshiro128+): the same inputs on every machine.
    const rng = xoroshiro128plus(20261126);
    const random = (below: number) => uniformInt(rng, 0, below - 1);
    const digits = (count: number) =>
      Array.from({ length: count }, () => (random(3) === 0 ? "0" : String(random(10)))).join("");
    const pick = <T>(items: readonly T[]): T => items[random(items.length)]!;
    for (let run = 0; run < 50_000; run++) {
      const sign = pick(["", "", "-", "+"]);
      const integer =
        "0".repeat(pick([0, 0, 1, 3])) + digits(pick([0, 1, 2, 3, 11, 12, 13, 28, 29]));
      const point = pick(["", ".", "."]);
      const fraction =
        digits(pick([0, 1, 2, 3, 7, 8, 9, 27, 28, 29, 40])) + "0".repeat(pick([0, 0, 1, 30]));
      const exponent = pick(["", "", "", "", "e3", "E-2", "e+0"]);
      const space = pick(["", "", "", "", " ", "\t"]);
      expectSameAnswer(
        `${space}${sign}${integer}${point}${point ? fraction : ""}${exponent}${space}`,
      );
      expectSameAnswer(
        pick([random(1e6), -random(1e15), random(1e6) / 64, 2 ** 53 + random(9), -0]),
      );
    }
  });
});
