import type { AnyRouter } from "@trpc/server";
import type { RatecardMeta } from "@ratecard/api";

/** One REST route of the router, as declared in a procedure's `meta.openapi`. */
export interface RestRoute {
  /** The procedure's path in the router (`hashmap.mappings.create`). */
  procedurePath: string;
  method: string;
  template: string;
  pattern: RegExp;
  /** The path parameter of an item route (`/services/{service_id}` -> `service_id`). */
  idParam: string | undefined;
  /** The collection an item route belongs to (`/services/{service_id}` -> `/services`). */
  collection: RegExp | undefined;
  /** The template's path parameters, in order: `pattern` captures their values. */
  pathParams: string[];
  /** The argument names the procedure's input takes (path parameters included). */
  inputNames: ReadonlySet<string>;
  bodyName: string;
  inputSource: "body" | "query";
  /** The output is a decimal string answered as a bare JSON number (CloudKitty's quote). */
  decimalAsJsonNumber: boolean;
  /** Arguments a request with a body takes from its query string (`?force=true`). */
  queryParameters: readonly string[];
  /** A POST answered 200 with a result, not a create's 201 (RatecardMeta.action). */
  action: boolean;
}

function templatePattern(template: string): RegExp {
  const segments = template
    .split("/")
    .map((segment) =>
      /^\{\w+\}$/.test(segment) ? "([^/]+)" : segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"),
    );
  return new RegExp(`^${segments.join("/")}$`, "i");
}

interface InputSchema {
  shape?: Record<string, unknown>;
  unwrap?: () => InputSchema;
}

/** The keys of a zod object input, looking through `.optional()`; none for other inputs. */
function inputNames(schema: InputSchema | undefined): Set<string> {
  let current = schema;
  while (current && !current.shape && typeof current.unwrap === "function")
    current = current.unwrap();
  return new Set(current?.shape ? Object.keys(current.shape) : []);
}

export function collectRestRoutes(router: AnyRouter): RestRoute[] {
  const routes: RestRoute[] = [];
  for (const [procedurePath, procedure] of Object.entries(
    router._def.procedures as Record<
      string,
      { _def: { meta?: RatecardMeta; inputs: InputSchema[] } }
    >,
  )) {
    const meta = procedure._def.meta;
    if (!meta?.openapi) continue;
    const { method, path } = meta.openapi;
    const item = /^(.*)\/\{(\w+)\}$/.exec(path);
    routes.push({
      procedurePath,
      method,
      template: path,
      pattern: templatePattern(path),
      idParam: item?.[2],
      collection: item?.[1] ? templatePattern(item[1]) : undefined,
      pathParams: [...path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]!),
      inputNames: inputNames(procedure._def.inputs[0]),
      bodyName: meta.bodyName ?? "body",
      decimalAsJsonNumber: meta.decimalAsJsonNumber ?? false,
      queryParameters: meta.queryParameters ?? [],
      action: meta.action ?? false,
      inputSource: method === "GET" || method === "DELETE" ? "query" : "body",
    });
  }
  return routes;
}

/** `/a/b/` -> `/a/b`; CloudKitty's client calls collections with a trailing slash. */
export function normalizePath(pathname: string): string {
  const trimmed = pathname.replace(/\/+$/, "");
  return trimmed === "" ? "/" : trimmed;
}

/**
 * CloudKitty's controllers that route to others but serve nothing themselves: it answers every
 * method there with a 405 and an empty `Allow` (its own API tests check `pyscripts/script`).
 */
const CONTROLLERS_WITHOUT_METHODS =
  /^\/v1(\/info|\/rating(\/module_config(\/hashmap|\/pyscripts(\/script)?)?)?)$/i;

export function isControllerWithoutMethods(path: string): boolean {
  return CONTROLLERS_WITHOUT_METHODS.test(path);
}
