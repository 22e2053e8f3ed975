import type { Context } from "../trpc.js";

export const MODULE_CONFIG = "/v1/rating/module_config";
export const HASHMAP = `${MODULE_CONFIG}/hashmap`;
export const PYSCRIPTS = `${MODULE_CONFIG}/pyscripts`;

/** Answers a create: 201 and `Location` over REST, the object either way. */
export function created<T>(ctx: Context, object: T, id: string): T {
  ctx.rest.status = 201;
  ctx.rest.createdId = id;
  return object;
}

/** Answers a delete: 204 with an empty body over REST. */
export function deleted(ctx: Context): void {
  ctx.rest.status = 204;
}
