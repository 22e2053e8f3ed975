import { LRUCache } from "lru-cache";

// A request's route for metrics: the template it was served by (`/v1/rating/module_config/hashmap/
// mappings/{mapping_id}`), never the raw path, so that ids and probes cannot multiply the series.

const UUID_SEGMENT = /\/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}(?=\/|$)/gi;
const FIXED = new Set([
  "/healthz",
  "/readyz",
  "/metrics",
  "/docs",
  "/v1/openapi.json",
  "/auth/session",
  "/auth/login",
  "/auth/logout",
]);

export interface RouteTemplate {
  template: string;
  pattern: RegExp;
}

export function createRouteLabels(
  restRoutes: readonly RouteTemplate[],
  rpcProcedures: Set<string>,
) {
  // Keyed by the path with its UUIDs folded, so the cache holds one entry per route shape.
  const labels = new LRUCache<string, string>({ max: 2_000 });

  function compute(path: string): string {
    if (FIXED.has(path)) return path;
    if (path.startsWith("/v1/") || path === "/v1") {
      const route = restRoutes.find((candidate) => candidate.pattern.test(path));
      return route?.template ?? "/v1/(unmatched)";
    }
    if (path.startsWith("/v2/") || path === "/v2") return "/v2/(not served)";
    if (path.startsWith("/trpc/")) {
      const names = path.slice("/trpc/".length).split(",");
      if (names.length > 1) return "/trpc/(batch)";
      return rpcProcedures.has(names[0]!) ? `/trpc/${names[0]}` : "/trpc/(unknown)";
    }
    if (path.startsWith("/auth/")) return "/auth/(unmatched)";
    if (path.startsWith("/docs/")) return "/docs/(assets)";
    return "(console or unmatched)";
  }

  /** The route label of a request target's path (without its query string). */
  return function routeLabel(pathname: string): string {
    const path = pathname.length > 1 ? pathname.replace(/\/+$/, "") : pathname;
    const folded = path.replace(UUID_SEGMENT, "/{id}");
    let label = labels.get(folded);
    if (label === undefined) {
      label = compute(path);
      labels.set(folded, label);
    }
    return label;
  };
}
