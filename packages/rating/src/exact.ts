import type { Decimal } from "decimal.js";
import { RatingDecimal } from "./decimal.js";

/**
 * A decimal held exactly as coefficient × 10^exponent: the fast path's number. Python's decimal
 * context rounds a result only when its exact value needs more than 28 significant digits, so a
 * product or sum whose exact coefficient stays below 10^28 is exactly what CloudKitty computes.
 * Every operation here is exact and reports whether CloudKitty would have kept the result as it
 * is (`fitsPrecision`); the caller falls back to decimal.js when it would not.
 *
 * The coefficient is the double `small` while it is a safe integer (below 2^53, where double
 * arithmetic on integers is exact and a result past it shows as such): the common prices need no
 * BigInt and no allocation. Beyond, it is the BigInt `large` and `small` is NaN.
 *
 * Parsed values and constants are never changed; the `...Into` functions write their result into
 * a target the caller owns (a register), so that pricing allocates nothing in the common case.
 */
export class ExactDecimal {
  constructor(
    public small: number,
    public large: bigint | null,
    public exponent: number,
    /**
     * The nearest double, or NaN when not known. Rounding to nearest is monotonic, so two values
     * whose doubles differ compare as their doubles do; only equal doubles need the exact compare.
     */
    public approximation: number,
  ) {}
}

/**
 * Exponents beyond this are left to decimal.js: aligning two numbers costs a multiplication by
 * 10^(difference), and Python's context limits exponents anyway. Rule costs, levels and volumes
 * never come close.
 */
export const MAX_EXACT_EXPONENT = 400;

const PRECISION_LIMIT = 10n ** 28n;
const MINUS_PRECISION_LIMIT = -PRECISION_LIMIT;
const SAFE = Number.MAX_SAFE_INTEGER;
// Comparing a BigInt with a number is a slow generic operation: BigInts compare with BigInts.
const SAFE_BIGINT = BigInt(SAFE);
const MINUS_SAFE_BIGINT = -SAFE_BIGINT;
/** Powers of ten that are exact doubles: 10^0 to 10^22 (up to 10^15 also safe integers). */
const DOUBLE_POWERS_OF_TEN = Array.from({ length: 23 }, (_, exponent) => 10 ** exponent);
const MAX_SAFE_POWER = 15;

export const EXACT_ZERO: Readonly<ExactDecimal> = new ExactDecimal(0, null, 0, 0);
export const EXACT_ONE: Readonly<ExactDecimal> = new ExactDecimal(1, null, 0, 1);
export const EXACT_MINUS_ONE: Readonly<ExactDecimal> = new ExactDecimal(-1, null, 0, -1);

/** A register: a value to compute into. */
export function exactRegister(): ExactDecimal {
  return new ExactDecimal(0, null, 0, 0);
}

const powersOfTen: bigint[] = [1n];

function powerOfTen(exponent: number): bigint {
  let power = powersOfTen[exponent];
  if (power === undefined) {
    power = 10n ** BigInt(exponent);
    if (exponent < 4 * MAX_EXACT_EXPONENT) powersOfTen[exponent] = power;
  }
  return power;
}

function bigCoefficient(value: Readonly<ExactDecimal>): bigint {
  return value.large ?? BigInt(value.small);
}

/** Stores a safe-integer result; one zero keeps comparisons from aligning to a far exponent. */
function setSmall(target: ExactDecimal, coefficient: number, exponent: number): void {
  target.large = null;
  target.approximation = Number.NaN;
  if (coefficient === 0) {
    // Also turns -0 into 0.
    target.small = 0;
    target.exponent = 0;
  } else {
    target.small = coefficient;
    target.exponent = exponent;
  }
}

function setLarge(target: ExactDecimal, coefficient: bigint, exponent: number): void {
  if (coefficient <= SAFE_BIGINT && coefficient >= MINUS_SAFE_BIGINT) {
    setSmall(target, Number(coefficient), exponent);
    return;
  }
  target.small = Number.NaN;
  target.large = coefficient;
  target.exponent = exponent;
  target.approximation = Number.NaN;
}

/** A new immutable value, with its nearest double when that is cheap to know exactly. */
function parsed(coefficient: number | bigint, exponent: number): ExactDecimal {
  const value = exactRegister();
  if (typeof coefficient === "number") setSmall(value, coefficient, exponent);
  else setLarge(value, coefficient, exponent);
  if (value.large === null) value.approximation = nearestDouble(value.small, value.exponent);
  return value;
}

/**
 * coefficient × 10^exponent rounded once, hence the nearest double: IEEE-754 rounds a product or
 * quotient of two exact doubles correctly, and a safe integer and 10^0..10^22 are exact doubles.
 */
function nearestDouble(coefficient: number, exponent: number): number {
  const power = DOUBLE_POWERS_OF_TEN[exponent >= 0 ? exponent : -exponent];
  if (power === undefined) return Number.NaN;
  return exponent >= 0 ? coefficient * power : coefficient / power;
}

const DIGIT_0 = 48;
const DIGIT_9 = 57;
const PLUS = 43;
const MINUS = 45;
const DOT = 46;
const LOWER_E = 101;
const UPPER_E = 69;
/** Up to this many digits the coefficient is accumulated as a double, exactly. */
const SMALL_DIGITS = 15;

/**
 * Reads the plain ASCII decimal form `[+-]digits[.digits][e[+-]digits]` (also `5.` and `.5`), the
 * form rule costs and levels are stored in and volumes and metadata almost always have. Returns
 * null for anything else (Python's wider grammar, infinities, NaN) and for an exponent beyond
 * MAX_EXACT_EXPONENT: those take the decimal.js path. Leading and trailing zeros are dropped
 * (`123.4560000000000000000000000000`, the validators' canonical form, is 123456e-3), which keeps
 * most coefficients on the double side.
 */
export function parseExactDecimal(text: string): Readonly<ExactDecimal> | null {
  const length = text.length;
  let position = 0;
  let negative = false;
  let code = text.charCodeAt(0);
  if (code === PLUS || code === MINUS) {
    negative = code === MINUS;
    position = 1;
  }
  const integerStart = position;
  while (position < length && isDigit(text.charCodeAt(position))) position += 1;
  let integerEnd = position;
  let fractionStart = position;
  let fractionEnd = position;
  if (position < length && text.charCodeAt(position) === DOT) {
    position += 1;
    fractionStart = position;
    while (position < length && isDigit(text.charCodeAt(position))) position += 1;
    fractionEnd = position;
  }
  if (integerEnd === integerStart && fractionEnd === fractionStart) return null;
  let exponent = 0;
  if (position < length) {
    code = text.charCodeAt(position);
    if (code !== LOWER_E && code !== UPPER_E) return null;
    position += 1;
    let exponentNegative = false;
    code = text.charCodeAt(position);
    if (code === PLUS || code === MINUS) {
      exponentNegative = code === MINUS;
      position += 1;
    }
    const exponentStart = position;
    while (position < length && isDigit((code = text.charCodeAt(position)))) {
      exponent = exponent * 10 + (code - DIGIT_0);
      // Past this the value is left to decimal.js; stop before the number grows imprecise.
      if (exponent > 10 * MAX_EXACT_EXPONENT) return null;
      position += 1;
    }
    if (position === exponentStart || position < length) return null;
    if (exponentNegative) exponent = -exponent;
  }
  exponent -= fractionEnd - fractionStart;
  // The coefficient's digits are integer part then fraction: trailing zeros move to the exponent.
  while (fractionEnd > fractionStart && text.charCodeAt(fractionEnd - 1) === DIGIT_0) {
    fractionEnd -= 1;
    exponent += 1;
  }
  if (fractionEnd === fractionStart) {
    while (integerEnd > integerStart && text.charCodeAt(integerEnd - 1) === DIGIT_0) {
      integerEnd -= 1;
      exponent += 1;
    }
  }
  let first = integerStart;
  while (first < integerEnd && text.charCodeAt(first) === DIGIT_0) first += 1;
  if (first === integerEnd) {
    first = fractionStart;
    while (first < fractionEnd && text.charCodeAt(first) === DIGIT_0) first += 1;
    if (first === fractionEnd) return EXACT_ZERO;
  }
  if (exponent > MAX_EXACT_EXPONENT || exponent < -MAX_EXACT_EXPONENT) return null;
  const digitCount =
    first < integerEnd ? integerEnd - first + (fractionEnd - fractionStart) : fractionEnd - first;
  if (digitCount <= SMALL_DIGITS) {
    let coefficient = 0;
    for (let at = first; at < integerEnd; at += 1) {
      coefficient = coefficient * 10 + (text.charCodeAt(at) - DIGIT_0);
    }
    for (let at = Math.max(first, fractionStart); at < fractionEnd; at += 1) {
      coefficient = coefficient * 10 + (text.charCodeAt(at) - DIGIT_0);
    }
    return parsed(negative ? -coefficient : coefficient, exponent);
  }
  const digits =
    first < integerEnd
      ? text.slice(first, integerEnd) + text.slice(fractionStart, fractionEnd)
      : text.slice(first, fractionEnd);
  const large = BigInt(digits);
  return parsed(negative ? -large : large, exponent);
}

function isDigit(code: number): boolean {
  return code >= DIGIT_0 && code <= DIGIT_9;
}

/** An integer, exactly (a number that is an integer, a bigint). */
export function exactInteger(value: number | bigint): Readonly<ExactDecimal> {
  return parsed(
    typeof value === "number" && !Number.isSafeInteger(value) ? BigInt(value) : value,
    0,
  );
}

/**
 * The exact value of a finite double, as Python's Decimal(float) gives it: Decimal(0.3) is
 * 0.29999999999999998889776975..., not 0.3. Built from the IEEE-754 bits with BigInt so that no
 * float arithmetic is involved. Returns null for NaN and the infinities.
 */
export function exactOfDouble(value: number): Readonly<ExactDecimal> | null {
  if (!Number.isFinite(value)) return null;
  if (Number.isSafeInteger(value)) return exactInteger(value);
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, value);
  const high = view.getUint32(0);
  const low = view.getUint32(4);
  const negative = high >>> 31 === 1;
  const biasedExponent = (high >>> 20) & 0x7ff;
  const fraction = (BigInt(high & 0xfffff) << 32n) | BigInt(low);
  const significand = biasedExponent === 0 ? fraction : fraction | (1n << 52n);
  const binaryExponent = (biasedExponent === 0 ? 1 : biasedExponent) - 1075;
  let result: ExactDecimal;
  if (binaryExponent >= 0) {
    const magnitude = significand << BigInt(binaryExponent);
    result = parsed(negative ? -magnitude : magnitude, 0);
  } else {
    let oddSignificand = significand;
    let exponent = -binaryExponent;
    while (exponent > 0 && (oddSignificand & 1n) === 0n) {
      oddSignificand >>= 1n;
      exponent -= 1;
    }
    const magnitude = oddSignificand * 5n ** BigInt(exponent);
    result = parsed(negative ? -magnitude : magnitude, -exponent);
  }
  result.approximation = value;
  return result;
}

/** A finite decimal.js value, exactly; null when its exponent is out of the fast path's range. */
export function exactOfDecimal(value: Decimal): Readonly<ExactDecimal> | null {
  if (!value.isFinite()) return null;
  return parseExactDecimal(value.toExponential());
}

/** The same value as a decimal.js number in CloudKitty's context (construction does not round). */
export function decimalOfExact(value: Readonly<ExactDecimal>): Decimal {
  const coefficient = value.large === null ? String(value.small) : value.large.toString();
  return new RatingDecimal(value.exponent === 0 ? coefficient : `${coefficient}e${value.exponent}`);
}

/** Whether CloudKitty's 28-digit context keeps this value as it is (true may be conservative). */
export function fitsPrecision(value: Readonly<ExactDecimal>): boolean {
  const large = value.large;
  return large === null || (large < PRECISION_LIMIT && large > MINUS_PRECISION_LIMIT);
}

export function copyExact(target: ExactDecimal, source: Readonly<ExactDecimal>): void {
  target.small = source.small;
  target.large = source.large;
  target.exponent = source.exponent;
  target.approximation = source.approximation;
}

/** target = left × right (target may be either operand); whether the result fits the precision. */
export function multiplyInto(
  target: ExactDecimal,
  left: Readonly<ExactDecimal>,
  right: Readonly<ExactDecimal>,
): boolean {
  const exponent = left.exponent + right.exponent;
  if (left.large === null && right.large === null) {
    // A double product at or past 2^53 may be rounded; below it, it is the exact integer.
    const product = left.small * right.small;
    if (product <= SAFE && product >= -SAFE) {
      setSmall(target, product, exponent);
      return true;
    }
  }
  setLarge(target, bigCoefficient(left) * bigCoefficient(right), exponent);
  return fitsPrecision(target);
}

/** target = left + right (target may be either operand); whether the result fits the precision. */
export function addInto(
  target: ExactDecimal,
  left: Readonly<ExactDecimal>,
  right: Readonly<ExactDecimal>,
): boolean {
  if (right.small === 0) {
    copyExact(target, left);
    return fitsPrecision(target);
  }
  if (left.small === 0) {
    copyExact(target, right);
    return fitsPrecision(target);
  }
  const difference = left.exponent - right.exponent;
  const exponent = difference > 0 ? right.exponent : left.exponent;
  if (left.large === null && right.large === null) {
    const a = difference > 0 ? scaleSafely(left.small, difference) : left.small;
    const b = difference < 0 ? scaleSafely(right.small, -difference) : right.small;
    const sum = a + b;
    // NaN (a scaling that left the safe range) fails both tests.
    if (sum <= SAFE && sum >= -SAFE) {
      setSmall(target, sum, exponent);
      return true;
    }
  }
  const a = difference > 0 ? bigCoefficient(left) * powerOfTen(difference) : bigCoefficient(left);
  const b =
    difference < 0 ? bigCoefficient(right) * powerOfTen(-difference) : bigCoefficient(right);
  setLarge(target, a + b, exponent);
  return fitsPrecision(target);
}

/** coefficient × 10^shift if that is still a safe integer, else NaN. */
function scaleSafely(coefficient: number, shift: number): number {
  if (shift > MAX_SAFE_POWER) return Number.NaN;
  const scaled = coefficient * (DOUBLE_POWERS_OF_TEN[shift] ?? Number.NaN);
  return scaled <= SAFE && scaled >= -SAFE ? scaled : Number.NaN;
}

/** -1, 0 or 1 as left is below, equal to or above right. */
export function compareExact(left: Readonly<ExactDecimal>, right: Readonly<ExactDecimal>): number {
  // NaN (unknown) compares neither way and falls through to the exact comparison.
  if (left.approximation < right.approximation) return -1;
  if (left.approximation > right.approximation) return 1;
  // Different signs (or a zero) decide without aligning.
  const leftSign = sign(left);
  const rightSign = sign(right);
  if (leftSign !== rightSign || leftSign === 0) {
    return leftSign < rightSign ? -1 : leftSign > rightSign ? 1 : 0;
  }
  const difference = left.exponent - right.exponent;
  if (left.large === null && right.large === null) {
    const a = difference > 0 ? scaleSafely(left.small, difference) : left.small;
    const b = difference < 0 ? scaleSafely(right.small, -difference) : right.small;
    if (!Number.isNaN(a) && !Number.isNaN(b)) return a < b ? -1 : a > b ? 1 : 0;
  }
  const a = difference > 0 ? bigCoefficient(left) * powerOfTen(difference) : bigCoefficient(left);
  const b =
    difference < 0 ? bigCoefficient(right) * powerOfTen(-difference) : bigCoefficient(right);
  return a < b ? -1 : a > b ? 1 : 0;
}

function sign(value: Readonly<ExactDecimal>): number {
  // A large coefficient is never zero.
  if (value.large === null) return Math.sign(value.small);
  return value.large > 0n ? 1 : -1;
}
