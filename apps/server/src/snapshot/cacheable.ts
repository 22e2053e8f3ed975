// Which reads the snapshot may keep: answers that depend only on the URL and the rating
// configuration, never on who asks (the edge has already decided whether they may).

const REST_READS = /^\/v1\/(rating\/module_config\/|rating\/modules(\/|$)|info\/)/i;
/** RPC procedures whose answers are the same for every caller (not accounts.*: own tokens). */
const RPC_READS = /^(hashmap|pyscripts|modules|console|info)\./;

export function isCacheableRestRead(path: string): boolean {
  return REST_READS.test(path);
}

/** The procedures of an RPC GET (`/trpc/a.b,c.d`), or null when one of them may not be kept. */
export function cacheableRpcProcedures(pathname: string): string[] | null {
  const procedures = decodeURIComponent(pathname.slice("/trpc/".length)).split(",");
  return procedures.every((procedure) => RPC_READS.test(procedure)) ? procedures : null;
}

/**
 * Whether a read's answer changes with the clock, not only with the data: `is_active` lists the
 * rules in force now, and a rule starts or ends without any write (docs/lifecycle.md). Those are
 * never kept. Read on the decoded URL, so that an RPC input (JSON in `?input=`) is seen too.
 */
export function dependsOnTheClock(url: string): boolean {
  // Without an escape there is nothing to decode (most targets).
  if (!url.includes("%")) return url.includes("is_active");
  let decoded = url;
  try {
    decoded = decodeURIComponent(url);
  } catch {
    // A malformed escape: the raw URL is all there is to read.
  }
  return decoded.includes("is_active");
}
