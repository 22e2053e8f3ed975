import { z } from "zod";

const TRUE_WORDS = new Set(["true", "1", "yes"]);
const FALSE_WORDS = new Set(["false", "0", "no", ""]);

/**
 * Reads a boolean from a query string. CloudKitty takes any non-empty value as true, so
 * `?recursive=false` deletes recursively; Ratecard reads the words people mean and refuses the rest.
 * Returns undefined for a value that is neither.
 */
export function parseQueryBoolean(value: string | boolean): boolean | undefined {
  if (typeof value === "boolean") return value;
  const word = value.trim().toLowerCase();
  if (TRUE_WORDS.has(word)) return true;
  if (FALSE_WORDS.has(word)) return false;
  return undefined;
}

/**
 * A query-string integer from min to max: REST sends text, RPC callers may send a number. An
 * explicit transform, because trpc-to-openapi would switch a bare number leaf to coercion.
 */
export function ZQueryInteger(min: number, max: number) {
  const message = `Expected an integer from ${min} to ${max}.`;
  return z.union([z.string(), z.int()], { error: message }).transform((input, ctx) => {
    const value = typeof input === "number" ? input : /^[0-9]{1,9}$/.test(input) ? +input : NaN;
    if (Number.isInteger(value) && value >= min && value <= max) return value;
    ctx.addIssue({ code: "custom", message, input });
    return z.NEVER;
  });
}
