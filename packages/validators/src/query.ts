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
