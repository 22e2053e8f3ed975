/**
 * Costs and levels as exact decimal text. CloudKitty renders them with Python's Decimal str():
 * `"0.5000000000000000000000000000"`, but also `"1.00000000000000002092E-8"` or `"0E-28"` (SQLite
 * hands CloudKitty a double, which Decimal prints in exponent form when small). They are kept as
 * the text CloudKitty sent; these helpers compare them without ever going through a double.
 */

/** A decimal number as JSON or Python's Decimal writes it (no NaN, no Infinity). */
export const DECIMAL_TEXT = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

export function isDecimalText(text: string): boolean {
  return DECIMAL_TEXT.test(text);
}

/**
 * The same number in plain positional notation, without exponent, redundant zeros or sign of
 * zero: "1.00000000000000002092E-8" -> "0.0000000100000000000000002092", "10.50000000" -> "10.5",
 * "0E-28" -> "0". Exact: only the digits are moved.
 */
export function toPlainDecimal(text: string): string {
  const match = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(text.trim());
  if (!match || !isDecimalText(text.trim())) throw new RangeError(`not a decimal number: ${text}`);
  const [, sign = "", intPart = "", fracPart = "", exponentText = "0"] = match;
  const digits = intPart + fracPart;
  // The decimal point sits after `point` digits of `digits`.
  const point = intPart.length + Number(exponentText);
  let whole: string;
  let fraction: string;
  if (point <= 0) {
    whole = "0";
    fraction = "0".repeat(-point) + digits;
  } else if (point >= digits.length) {
    whole = digits + "0".repeat(point - digits.length);
    fraction = "";
  } else {
    whole = digits.slice(0, point);
    fraction = digits.slice(point);
  }
  whole = whole.replace(/^0+(?=\d)/, "");
  fraction = fraction.replace(/0+$/, "");
  const magnitude = fraction ? `${whole}.${fraction}` : whole;
  return sign === "-" && magnitude !== "0" ? `-${magnitude}` : magnitude;
}

/** -1, 0 or 1 as a < b, a = b, a > b, exactly. */
export function compareDecimals(a: string, b: string): -1 | 0 | 1 {
  const x = toPlainDecimal(a);
  const y = toPlainDecimal(b);
  const xNegative = x.startsWith("-");
  const yNegative = y.startsWith("-");
  if (xNegative !== yNegative) return xNegative ? -1 : 1;
  const magnitude = compareMagnitudes(x.replace(/^-/, ""), y.replace(/^-/, ""));
  return (xNegative ? -magnitude : magnitude) as -1 | 0 | 1;
}

function compareMagnitudes(x: string, y: string): -1 | 0 | 1 {
  const [xWhole = "", xFraction = ""] = x.split(".");
  const [yWhole = "", yFraction = ""] = y.split(".");
  if (xWhole.length !== yWhole.length) return xWhole.length < yWhole.length ? -1 : 1;
  const width = Math.max(xFraction.length, yFraction.length);
  const left = xWhole + xFraction.padEnd(width, "0");
  const right = yWhole + yFraction.padEnd(width, "0");
  return left === right ? 0 : left < right ? -1 : 1;
}

/** Equal as exact decimals ("0.50" and "5E-1" are). */
export function decimalsEqual(a: string, b: string): boolean {
  return compareDecimals(a, b) === 0;
}
