import { Decimal } from "decimal.js";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  addInto,
  compareExact,
  decimalOfExact,
  exactOfDouble,
  exactRegister,
  fitsPrecision,
  multiplyInto,
  parseExactDecimal,
  type ExactDecimal,
} from "../src/exact.js";

/** Never rounds for these operands: the exact value to compare with. */
const Unrounded = Decimal.clone({ precision: 1e9 });

/** Plain decimals from 1 to 40 digits, with exponents: safe integers, BigInts and near ties. */
const plainDecimal: fc.Arbitrary<string> = fc
  .tuple(
    fc.constantFrom("", "-", "+"),
    fc.oneof(
      fc.bigInt({ min: 0n, max: 10n ** 6n }),
      fc.bigInt({ min: 0n, max: 2n ** 53n + 10n }),
      fc.bigInt({ min: 0n, max: 10n ** 40n }),
    ),
    fc.integer({ min: 0, max: 30 }),
    fc.option(fc.integer({ min: -40, max: 40 }), { nil: null }),
    fc.boolean(),
  )
  .map(([sign, digits, decimals, exponent, leadingZeros]) => {
    const text = (leadingZeros ? "00" : "") + digits.toString().padStart(decimals + 1, "0");
    const mantissa = decimals === 0 ? text : `${text.slice(0, -decimals)}.${text.slice(-decimals)}`;
    return `${sign}${mantissa}${exponent === null ? "" : `e${exponent}`}`;
  });

function exactOf(text: string): Readonly<ExactDecimal> {
  const value = parseExactDecimal(text);
  if (value === null) throw new Error(`not a plain decimal: ${text}`);
  return value;
}

function unrounded(value: Readonly<ExactDecimal>): Decimal {
  return new Unrounded(decimalOfExact(value));
}

/** What fitsPrecision promises: CloudKitty's 28-digit context keeps the value unchanged. */
function keptByCloudKitty(value: Decimal): boolean {
  return value.isZero() || value.sd() <= 28;
}

describe("exact decimals", () => {
  it("read plain decimals to their exact value", () => {
    fc.assert(
      fc.property(plainDecimal, (text) => {
        expect(unrounded(exactOf(text)).eq(new Unrounded(text))).toBe(true);
      }),
      { numRuns: 3000 },
    );
  });

  it("refuse what is not the plain form, and exponents out of range", () => {
    for (const text of ["", "+", "-", ".", "e5", "1e", "1e+", " 1", "1 ", "1_0", "0x10", "Inf"]) {
      expect(parseExactDecimal(text), text).toBeNull();
    }
    for (const text of ["NaN", "1,5", "1.2.3", "--1", "1e5.5", "\u0661", "1e401", "1e-401"]) {
      expect(parseExactDecimal(text), text).toBeNull();
    }
    expect(unrounded(exactOf("5.")).toFixed()).toBe("5");
    expect(unrounded(exactOf("-.5e1")).toFixed()).toBe("-5");
    expect(unrounded(exactOf("1e400")).eq("1e400")).toBe(true);
    expect(parseExactDecimal("1e401")).toBeNull();
    expect(parseExactDecimal("0e999")).toEqual(parseExactDecimal("0"));
  });

  it("move leading and trailing zeros out of the coefficient", () => {
    // The validators' canonical volume: 28 fractional digits.
    expect(exactOf("123.4560000000000000000000000000")).toMatchObject({
      small: 123456,
      large: null,
      exponent: -3,
    });
    expect(exactOf("-0001000.000e2")).toMatchObject({ small: -1, large: null, exponent: 5 });
    expect(exactOf("0.000000000000000000001234")).toMatchObject({ small: 1234, exponent: -24 });
    expect(exactOf("-0.000")).toMatchObject({ small: 0, large: null, exponent: 0 });
    expect(exactOf("1234567890123456789")).toMatchObject({ large: 1234567890123456789n });
  });

  it("multiply and add exactly, and say when CloudKitty would round", () => {
    fc.assert(
      fc.property(plainDecimal, plainDecimal, (left, right) => {
        const a = exactOf(left);
        const b = exactOf(right);
        const product = exactRegister();
        const productFits = multiplyInto(product, a, b);
        const exactProduct = new Unrounded(left).times(right);
        expect(unrounded(product).eq(exactProduct)).toBe(true);
        expect(productFits).toBe(fitsPrecision(product));
        if (productFits) expect(keptByCloudKitty(exactProduct)).toBe(true);

        const sum = exactRegister();
        const sumFits = addInto(sum, a, b);
        const exactSum = new Unrounded(left).plus(right);
        expect(unrounded(sum).eq(exactSum)).toBe(true);
        expect(sumFits).toBe(fitsPrecision(sum));
        if (sumFits) expect(keptByCloudKitty(exactSum)).toBe(true);
      }),
      { numRuns: 3000 },
    );
  });

  it("keep results of up to 15 digits on the fast side", () => {
    const product = exactRegister();
    expect(multiplyInto(product, exactOf("12.345678"), exactOf("123.456"))).toBe(true);
    expect(product.large).toBeNull();
    expect(multiplyInto(product, product, exactOf("1.2345"))).toBe(true);
    expect(product.large).not.toBeNull();
    expect(decimalOfExact(product).toFixed()).toBe("1881.560734600896");
    // 29 digits: CloudKitty rounds.
    expect(multiplyInto(product, exactOf("99999999999999"), exactOf("999999999999999"))).toBe(
      false,
    );
    // Parsing drops trailing zeros, so 10^16 × 10^12 is 1 × 10^28, not a 29-digit coefficient.
    const tenToThe = (power: number): Readonly<ExactDecimal> => exactOf(`1${"0".repeat(power)}`);
    expect(multiplyInto(product, tenToThe(16), tenToThe(12))).toBe(true);
    expect(multiplyInto(product, exactOf("99999999999999"), exactOf("9999999999999.9"))).toBe(true);
  });

  it("operate in place, on either operand", () => {
    const register = exactRegister();
    expect(addInto(register, exactOf("1.5"), exactOf("2"))).toBe(true);
    expect(addInto(register, register, register)).toBe(true);
    expect(multiplyInto(register, register, register)).toBe(true);
    expect(decimalOfExact(register).toFixed()).toBe("49");
  });

  it("compare exactly, whether the doubles decide or not", () => {
    const nearTies = plainDecimal.chain((text) =>
      fc
        .constantFrom("0", "1e-30", "-1e-30", "1e-10", "5e-324")
        .map((delta) => [text, new Unrounded(text).plus(delta).toString()] as const),
    );
    fc.assert(
      fc.property(fc.oneof(fc.tuple(plainDecimal, plainDecimal), nearTies), ([left, right]) => {
        expect(compareExact(exactOf(left), exactOf(right))).toBe(
          new Unrounded(left).comparedTo(right),
        );
      }),
      { numRuns: 3000 },
    );
  });

  it("read a double as its exact binary value", () => {
    expect(decimalOfExact(exactOfDouble(0.3) ?? exactOf("0")).toFixed()).toBe(
      "0.299999999999999988897769753748434595763683319091796875",
    );
    expect(exactOfDouble(Number.NaN)).toBeNull();
    expect(exactOfDouble(Number.POSITIVE_INFINITY)).toBeNull();
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (value) => {
        const exact = exactOfDouble(value);
        if (exact === null) throw new Error("finite doubles have an exact value");
        // Printing the exact value and reading it back gives the same double.
        expect(Number(decimalOfExact(exact).toString())).toBe(value === 0 ? 0 : value);
        expect(compareExact(exact, exactOf(String(value)))).toBe(
          new Unrounded(decimalOfExact(exact)).comparedTo(String(value)),
        );
      }),
      { numRuns: 2000 },
    );
  });
});
