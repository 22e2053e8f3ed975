import { Decimal } from "decimal.js";

/** Storage limits, CloudKitty's newest schema: cost NUMERIC(40,28), level NUMERIC(20,8). */
export const COST_PRECISION = { integerDigits: 12, fractionDigits: 28 } as const;
export const LEVEL_PRECISION = { integerDigits: 12, fractionDigits: 8 } as const;

// decimal.js rounds arithmetic to 20 significant digits by default; 40 digits are stored.
const ExactDecimal = Decimal.clone({ precision: 64 });

export interface DecimalPrecision {
  integerDigits: number;
  fractionDigits: number;
}

// What Python's Decimal() accepts for finite numbers (CloudKitty's parser), minus its `_` digit
// separators: optional surrounding spaces, sign, digits with an optional point, optional exponent.
const DECIMAL_LITERAL = /^\s*[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?\s*$/i;

/** 10^digits, built once per precision: decimal.js powers are slow for a per-value check. */
const limits = new Map<number, Decimal>();
function limitOf(integerDigits: number): Decimal {
  let limit = limits.get(integerDigits);
  if (!limit) {
    limit = new ExactDecimal(10).pow(integerDigits);
    limits.set(integerDigits, limit);
  }
  return limit;
}

export type DecimalParseResult = { ok: true; value: string } | { ok: false; reason: string };

/**
 * Parses a decimal given as a string or a JSON number and renders it canonically with exactly
 * `fractionDigits` digits. Refuses what cannot be stored exactly rather than rounding it.
 */
export function parseDecimal(input: unknown, precision: DecimalPrecision): DecimalParseResult {
  const plain =
    typeof input === "string"
      ? plainDecimal(input, precision)
      : Number.isSafeInteger(input)
        ? plainDecimal(String(input), precision)
        : undefined;
  if (plain !== undefined) return { ok: true, value: plain };
  return parseDecimalByDecimalJs(input, precision);
}

/** parseDecimal through decimal.js whatever the input: what the plain path must agree with. */
export function parseDecimalByDecimalJs(
  input: unknown,
  precision: DecimalPrecision,
): DecimalParseResult {
  let text: string;
  if (typeof input === "number") {
    if (!Number.isFinite(input)) return { ok: false, reason: "Not a finite number." };
    text = String(input);
  } else if (typeof input === "string") {
    text = input;
  } else {
    return { ok: false, reason: "Expected a decimal number or a numeric string." };
  }
  if (!DECIMAL_LITERAL.test(text)) {
    return { ok: false, reason: "Not a decimal number (NaN and infinities are refused)." };
  }
  const value = new ExactDecimal(text.trim());
  if (value.decimalPlaces() > precision.fractionDigits) {
    return {
      ok: false,
      reason: `More than ${precision.fractionDigits} fractional digits cannot be stored exactly.`,
    };
  }
  if (value.abs().gte(limitOf(precision.integerDigits))) {
    return {
      ok: false,
      reason: `Out of range: at most ${precision.integerDigits} integer digits.`,
    };
  }
  // "-0" and "0" are one value.
  const canonical = value.isZero() ? new ExactDecimal(0) : value;
  return { ok: true, value: canonical.toFixed(precision.fractionDigits) };
}

const DIGIT_0 = 0x30;
const DIGIT_9 = 0x39;
const PLUS = 0x2b;
const MINUS = 0x2d;
const DOT = 0x2e;
/** Enough zeros to pad any fraction (the widest precision has 28 fractional digits). */
const ZEROS = "0".repeat(64);

/**
 * The canonical text of a plain decimal (`[+-]digits[.digits]`, also `5.` and `.5`) that fits the
 * precision, found by reading the digits; undefined for anything else (an exponent, spaces, a
 * value that does not fit), which decimal.js then reads and refuses with its reason. A quote's
 * thousand volumes are almost all plain, and decimal.js at 64 digits cost a fifth of a quote.
 * Where it answers, it answers what decimal.js does (a property test compares the two).
 */
function plainDecimal(text: string, precision: DecimalPrecision): string | undefined {
  // A quote's volumes are mostly one value ("1"): one text, read once, kept flat.
  if (text === lastPlain.text && precision === lastPlain.precision) return lastPlain.value;
  const value = renderPlainDecimal(text, precision);
  if (value !== undefined) lastPlain = { text, precision, value };
  return value;
}
let lastPlain: { text: string; precision: DecimalPrecision | null; value: string } = {
  text: "",
  precision: null,
  value: "",
};

function renderPlainDecimal(text: string, precision: DecimalPrecision): string | undefined {
  const length = text.length;
  let at = 0;
  let negative = false;
  const first = text.charCodeAt(0);
  if (first === PLUS || first === MINUS) {
    negative = first === MINUS;
    at = 1;
  }
  const integerStart = at;
  while (at < length && isDigit(text.charCodeAt(at))) at++;
  const integerEnd = at;
  let fractionStart = at;
  let fractionEnd = at;
  if (at < length && text.charCodeAt(at) === DOT) {
    fractionStart = ++at;
    while (at < length && isDigit(text.charCodeAt(at))) at++;
    fractionEnd = at;
  }
  if (at !== length || (integerEnd === integerStart && fractionEnd === fractionStart)) {
    return undefined;
  }
  let significantStart = integerStart;
  while (significantStart < integerEnd && text.charCodeAt(significantStart) === DIGIT_0) {
    significantStart++;
  }
  let significantEnd = fractionEnd;
  while (significantEnd > fractionStart && text.charCodeAt(significantEnd - 1) === DIGIT_0) {
    significantEnd--;
  }
  const fractionDigits = significantEnd - fractionStart;
  if (precision.fractionDigits > ZEROS.length) return undefined;
  if (integerEnd - significantStart > precision.integerDigits) return undefined;
  if (fractionDigits > precision.fractionDigits) return undefined;
  const zero = significantStart === integerEnd && fractionDigits === 0;
  const integer = significantStart === integerEnd ? "0" : text.slice(significantStart, integerEnd);
  const sign = negative && !zero ? "-" : "";
  if (precision.fractionDigits === 0) return sign + integer;
  const padding = precision.fractionDigits - fractionDigits;
  return `${sign}${integer}.${text.slice(fractionStart, significantEnd)}${ZEROS.slice(0, padding)}`;
}

function isDigit(code: number): boolean {
  return code >= DIGIT_0 && code <= DIGIT_9;
}

function formatOrThrow(input: string | number, precision: DecimalPrecision): string {
  const result = parseDecimal(input, precision);
  if (!result.ok) throw new RangeError(`${String(input)}: ${result.reason}`);
  return result.value;
}

/** `"0.5"` -> `"0.5000000000000000000000000000"` (28 fractional digits). */
export function formatCost(input: string | number): string {
  return formatOrThrow(input, COST_PRECISION);
}

/** `"10"` -> `"10.00000000"` (8 fractional digits). */
export function formatLevel(input: string | number): string {
  return formatOrThrow(input, LEVEL_PRECISION);
}
