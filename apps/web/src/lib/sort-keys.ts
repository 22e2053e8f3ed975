import { compareDecimals } from "./decimal";

// Sorting 10,000 rules by cost compares about 130,000 pairs: each decimal string is parsed once
// into an integer at the API's scale (28 fractional digits) and compared as a bigint afterwards.
const keys = new Map<string, bigint | null>();
const DECIMAL = /^(-?)(\d+)(?:\.(\d{0,28}))?$/;
const MAX_KEYS = 100_000;

function decimalKey(text: string): bigint | null {
  let key = keys.get(text);
  if (key === undefined) {
    const match = DECIMAL.exec(text);
    key = match ? BigInt(`${match[1]}${match[2]}${(match[3] ?? "").padEnd(28, "0")}`) : null;
    if (keys.size >= MAX_KEYS) keys.clear();
    keys.set(text, key);
  }
  return key;
}

/** compareDecimals, exactly, with each string parsed once; what is not a number sorts last. */
export function compareDecimalsCached(left: string, right: string): number {
  const leftKey = decimalKey(left);
  const rightKey = decimalKey(right);
  if (leftKey === null || rightKey === null) return compareDecimals(left, right);
  return leftKey < rightKey ? -1 : leftKey > rightKey ? 1 : 0;
}
