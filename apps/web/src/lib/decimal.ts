// The API renders costs with 28 and levels with 8 fractional digits. These helpers work on the
// decimal strings themselves, never through binary floats, so nothing is rounded.

const CANONICAL = /^(-?)(\d+)(?:\.(\d+))?$/;

/** "0.5000000000000000000000000000" -> "0.5", "10.00000000" -> "10". Other text is returned as is. */
export function trimDecimal(text: string): string {
  const match = CANONICAL.exec(text);
  if (!match) return text;
  const [, sign = "", integer = "0", fraction = ""] = match;
  const digits = fraction.replace(/0+$/, "");
  const trimmedInteger = integer.replace(/^0+(?=\d)/, "");
  const body = digits ? `${trimmedInteger}.${digits}` : trimmedInteger;
  return body === "0" ? "0" : `${sign}${body}`;
}

/** Orders two decimal strings exactly (as numbers, not as text). Non-numbers sort last. */
export function compareDecimals(a: string, b: string): number {
  const left = CANONICAL.exec(a);
  const right = CANONICAL.exec(b);
  if (!left || !right) return Number(!left) - Number(!right);
  const leftNegative = left[1] === "-" && !isZero(left);
  const rightNegative = right[1] === "-" && !isZero(right);
  if (leftNegative !== rightNegative) return leftNegative ? -1 : 1;
  const magnitude = compareMagnitudes(left, right);
  return leftNegative ? -magnitude : magnitude;
}

function isZero(match: RegExpExecArray): boolean {
  return /^0*$/.test(match[2] ?? "") && /^0*$/.test(match[3] ?? "");
}

function compareMagnitudes(left: RegExpExecArray, right: RegExpExecArray): number {
  const leftInteger = (left[2] ?? "0").replace(/^0+/, "");
  const rightInteger = (right[2] ?? "0").replace(/^0+/, "");
  if (leftInteger.length !== rightInteger.length)
    return leftInteger.length < rightInteger.length ? -1 : 1;
  if (leftInteger !== rightInteger) return leftInteger < rightInteger ? -1 : 1;
  const width = Math.max(left[3]?.length ?? 0, right[3]?.length ?? 0);
  const leftFraction = (left[3] ?? "").padEnd(width, "0");
  const rightFraction = (right[3] ?? "").padEnd(width, "0");
  if (leftFraction === rightFraction) return 0;
  return leftFraction < rightFraction ? -1 : 1;
}
