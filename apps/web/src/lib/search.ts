// URL query strings as plain text: the router's default JSON-in-the-URL format would turn a
// tenant id such as "123" into a number and show quotes around strings in shared links.

export type SearchRecord = Record<string, unknown>;

export function parseSearch(searchString: string): SearchRecord {
  const params = new URLSearchParams(
    searchString.startsWith("?") ? searchString.slice(1) : searchString,
  );
  const result: SearchRecord = {};
  for (const [key, value] of params) result[key] = value;
  return result;
}

/** Leaves out empty, undefined, null and false values so that defaults keep URLs short. */
export function stringifySearch(search: SearchRecord): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(search)) {
    if (value === undefined || value === null || value === "" || value === false) continue;
    if (value === true) params.set(key, "1");
    else if (typeof value === "string" || typeof value === "number") params.set(key, String(value));
  }
  const text = params.toString();
  return text ? `?${text}` : "";
}
