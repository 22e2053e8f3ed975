import type { Decimal } from "decimal.js";
import { RatingDecimal, parsePythonDecimal } from "./decimal.js";
import { decimalOfExact, exactOfDouble } from "./exact.js";

/**
 * CloudKitty matches a field mapping on `str(value) == mapping.value`, where
 * value is whatever json.loads produced. This renders a JS metadata value as
 * Python would render the value json.loads gives for JSON.stringify(value):
 * strings as they are, true/false/null as True/False/None, integers written
 * without exponent (|n| < 1e21) as Python ints, other numbers as Python's
 * float repr (`0.5`, `1e-05`, `1e+21`). JSON cannot say `3.0` apart from `3`
 * once parsed in JS, so a JSON `3.0` (Python "3.0") is read as "3".
 * Arrays, objects and undefined match no mapping (Python would render their repr).
 */
export function metadataText(value: unknown): string | undefined {
  switch (typeof value) {
    case "string":
      return value;
    case "boolean":
      return value ? "True" : "False";
    case "bigint":
      return value.toString();
    case "number":
      return pythonNumberText(value);
    case "object":
      return value === null ? "None" : undefined;
    default:
      return undefined;
  }
}

/**
 * The number a field threshold compares, as CloudKitty's Decimal(value) reads
 * it: strings with Python's Decimal grammar, numbers exactly (a float's binary
 * value, as Decimal(float) does), booleans as 1/0 (bool is an int in Python).
 * Returns null where Python raises (None, NaN, non-numeric strings, objects);
 * CloudKitty then fails the whole rating, Ratecard only skips the threshold.
 */
export function metadataNumber(value: unknown): Decimal | null {
  switch (typeof value) {
    case "string":
      return parsePythonDecimal(value);
    case "number":
      return decimalOfDouble(value);
    case "boolean":
      return new RatingDecimal(value ? 1 : 0);
    case "bigint":
      return new RatingDecimal(value.toString());
    default:
      return null;
  }
}

function decimalOfDouble(value: number): Decimal | null {
  if (Number.isNaN(value)) return null;
  if (!Number.isFinite(value)) return new RatingDecimal(value > 0 ? "Infinity" : "-Infinity");
  const exact = exactOfDouble(value);
  return exact && decimalOfExact(exact);
}

function pythonNumberText(value: number): string {
  if (Number.isNaN(value)) return "nan";
  if (!Number.isFinite(value)) return value > 0 ? "inf" : "-inf";
  if (Number.isSafeInteger(value)) return String(value);
  if (Number.isInteger(value) && !/e/.test(String(value))) return BigInt(value).toString();
  return pythonFloatRepr(value);
}

/**
 * Python's repr(float): the same shortest round-trip digits as JS, but fixed
 * notation only for decimal exponents -4..15, always a fractional part there,
 * and a signed two-digit exponent otherwise.
 */
function pythonFloatRepr(value: number): string {
  const [mantissa = "", exponentText = "0"] = value.toExponential().split("e");
  const exponent = Number.parseInt(exponentText, 10);
  const sign = mantissa.startsWith("-") ? "-" : "";
  const digits = mantissa.replace("-", "").replace(".", "");
  if (exponent >= -4 && exponent < 16) {
    if (exponent < 0) return `${sign}0.${"0".repeat(-exponent - 1)}${digits}`;
    const integerPart = digits.slice(0, exponent + 1).padEnd(exponent + 1, "0");
    const fractionPart = digits.slice(exponent + 1) || "0";
    return `${sign}${integerPart}.${fractionPart}`;
  }
  const significand = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
  const exponentSign = exponent < 0 ? "-" : "+";
  return `${sign}${significand}e${exponentSign}${String(Math.abs(exponent)).padStart(2, "0")}`;
}
