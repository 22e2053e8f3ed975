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
