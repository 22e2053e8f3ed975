import { Decimal } from "decimal.js";

/**
 * Decimals with the arithmetic context CloudKitty rates in: Python's default
 * decimal context (28 significant digits, ROUND_HALF_EVEN). CloudKitty never
 * changes it, so every product and sum of a rating is rounded there; parsing
 * stays exact, as it does in Python.
 */
export const RatingDecimal: typeof Decimal = Decimal.clone({
  precision: 28,
  rounding: Decimal.ROUND_HALF_EVEN,
  toExpNeg: -9e15,
  toExpPos: 9e15,
});

export const ZERO = new RatingDecimal(0);
export const ONE = new RatingDecimal(1);
export const MINUS_ONE = new RatingDecimal(-1);

const ASCII_DECIMAL = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;
const ASCII_INFINITY = /^([+-]?)inf(?:inity)?$/i;
const PLAIN_ASCII = /^[\x21-\x5e\x60-\x7e]*$/;
const DECIMAL_DIGIT = /^\p{Nd}$/u;

/** The characters Python's str.isspace() accepts, which Decimal() strips. */
const PYTHON_WHITESPACE = new Set(
  [
    0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x1c, 0x1d, 0x1e, 0x1f, 0x20, 0x85, 0xa0, 0x1680, 0x2000, 0x2001,
    0x2002, 0x2003, 0x2004, 0x2005, 0x2006, 0x2007, 0x2008, 0x2009, 0x200a, 0x2028, 0x2029, 0x202f,
    0x205f, 0x3000,
  ].map((codePoint) => String.fromCodePoint(codePoint)),
);

/**
 * Reads a decimal string the way Python's decimal.Decimal(str) does: surrounding
 * whitespace, underscores anywhere, any Unicode decimal digit, `5.`, `.5`,
 * exponents and `Inf`/`Infinity` in any case. Returns null for what Python
 * rejects and for NaN, which CloudKitty cannot compare either.
 */
export function parsePythonDecimal(text: string): Decimal | null {
  const ascii = PLAIN_ASCII.test(text) ? text : toPythonAscii(text);
  if (ascii === null) return null;
  if (ASCII_DECIMAL.test(ascii)) return new RatingDecimal(ascii);
  const infinity = ASCII_INFINITY.exec(ascii);
  if (infinity) return new RatingDecimal(infinity[1] === "-" ? "-Infinity" : "Infinity");
  return null;
}

/** Mirrors CPython's numeric_as_ascii(): strip, drop underscores, map Unicode digits. */
function toPythonAscii(text: string): string | null {
  const characters = Array.from(text);
  let start = 0;
  let end = characters.length;
  while (start < end && PYTHON_WHITESPACE.has(characters[start] ?? "")) start += 1;
  while (end > start && PYTHON_WHITESPACE.has(characters[end - 1] ?? "")) end -= 1;
  let ascii = "";
  for (const character of characters.slice(start, end)) {
    if (character === "_") continue;
    const codePoint = character.codePointAt(0) ?? 0;
    if (codePoint > 0 && codePoint <= 0x7f) ascii += character;
    else if (PYTHON_WHITESPACE.has(character)) ascii += " ";
    else if (DECIMAL_DIGIT.test(character)) ascii += String(unicodeDigitValue(codePoint));
    else return null;
  }
  return ascii;
}

/** Unicode assigns decimal digits only in contiguous runs of ten starting at zero. */
function unicodeDigitValue(codePoint: number): number {
  let offset = 0;
  while (DECIMAL_DIGIT.test(String.fromCodePoint(codePoint - offset - 1))) offset += 1;
  return offset % 10;
}

/** Parses a cost, level or volume; rejects anything but a finite decimal. */
export function parseFiniteDecimal(text: string): Decimal | null {
  const value = parsePythonDecimal(text);
  return value !== null && value.isFinite() ? value : null;
}

/** The strict form rule costs and levels must have (they come from Ratecard's database). */
export function parseRuleDecimal(text: unknown): Decimal | null {
  return typeof text === "string" && ASCII_DECIMAL.test(text) ? new RatingDecimal(text) : null;
}

/** Formats a decimal without exponent, the form Ratecard's REST layer uses. */
export function formatDecimal(value: Decimal): string {
  return value.toFixed();
}
