import { expect, type APIRequestContext } from "@playwright/test";
import type {
  TField,
  TGroup,
  TMapping,
  TRatingModule,
  TScript,
  TService,
  TThreshold,
} from "@ratecard/validators";

// The REST API (CloudKitty's /v1 contract) as the journeys' source of truth: seeds data for a
// journey and checks afterwards that the server holds what the user did in the console.

export const HASHMAP = "/v1/rating/module_config/hashmap";
export const PYSCRIPTS = "/v1/rating/module_config/pyscripts";

/** A name no other journey uses, so journeys do not depend on each other's data. */
export function uniqueName(prefix: string): string {
  return `${prefix}-${Math.random().toString(36).slice(2, 8)}`;
}

async function json<T>(
  request: APIRequestContext,
  method: "get" | "post",
  url: string,
  data?: unknown,
): Promise<T> {
  const response = await request[method](url, data === undefined ? undefined : { data });
  expect(
    response.ok(),
    `${method.toUpperCase()} ${url}: ${response.status()} ${await response.text()}`,
  ).toBe(true);
  return (await response.json()) as T;
}

export const rest = {
  get: <T>(request: APIRequestContext, url: string) => json<T>(request, "get", url),
  status: async (request: APIRequestContext, url: string) => (await request.get(url)).status(),

  createService: (request: APIRequestContext, name: string) =>
    json<TService>(request, "post", `${HASHMAP}/services`, { name }),
  createField: (request: APIRequestContext, serviceId: string, name: string) =>
    json<TField>(request, "post", `${HASHMAP}/fields`, { service_id: serviceId, name }),
  createGroup: (request: APIRequestContext, name: string) =>
    json<TGroup>(request, "post", `${HASHMAP}/groups`, { name }),
  createMapping: (request: APIRequestContext, mapping: Record<string, unknown>) =>
    json<TMapping>(request, "post", `${HASHMAP}/mappings`, mapping),
  createThreshold: (request: APIRequestContext, threshold: Record<string, unknown>) =>
    json<TThreshold>(request, "post", `${HASHMAP}/thresholds`, threshold),

  services: async (request: APIRequestContext) =>
    (await json<{ services: TService[] }>(request, "get", `${HASHMAP}/services`)).services,
  fields: async (request: APIRequestContext, serviceId: string) =>
    (await json<{ fields: TField[] }>(request, "get", `${HASHMAP}/fields?service_id=${serviceId}`))
      .fields,
  groups: async (request: APIRequestContext) =>
    (await json<{ groups: TGroup[] }>(request, "get", `${HASHMAP}/groups`)).groups,
  mappings: async (request: APIRequestContext, query: string) =>
    (await json<{ mappings: TMapping[] }>(request, "get", `${HASHMAP}/mappings?${query}`)).mappings,
  thresholds: async (request: APIRequestContext, query: string) =>
    (await json<{ thresholds: TThreshold[] }>(request, "get", `${HASHMAP}/thresholds?${query}`))
      .thresholds,
  scripts: async (request: APIRequestContext) =>
    (await json<{ scripts: TScript[] }>(request, "get", `${PYSCRIPTS}/scripts`)).scripts,
  module: (request: APIRequestContext, moduleId: string) =>
    json<TRatingModule>(request, "get", `/v1/rating/modules/${moduleId}`),

  /** CloudKitty's quote: the answer is a bare JSON number, returned here as the text the server sent. */
  quote: async (
    request: APIRequestContext,
    resources: { service: string; desc: Record<string, unknown>; volume: string }[],
  ) => {
    const response = await request.post("/v1/rating/quote", { data: { resources } });
    const body = await response.text();
    expect(response.status(), `POST /v1/rating/quote: ${body}`).toBe(200);
    return body;
  },
};

/** A service with one field and a group, the usual start of a journey. */
export async function seedServiceWithField(request: APIRequestContext, prefix: string) {
  const service = await rest.createService(request, uniqueName(prefix));
  const field = await rest.createField(request, service.service_id, "flavor_id");
  return { service, field };
}

/**
 * Creates many mappings fast: batches of creates in one tRPC request each (the console's own
 * transport), one batch at a time because SQLite has one writer.
 */
export async function seedMappings(
  request: APIRequestContext,
  mappings: Record<string, unknown>[],
  batchSize = 250,
) {
  for (let start = 0; start < mappings.length; start += batchSize) {
    const batch = mappings.slice(start, start + batchSize);
    const procedures = batch.map(() => "hashmap.mappings.create").join(",");
    const response = await request.post(`/trpc/${procedures}?batch=1`, {
      data: Object.fromEntries(batch.map((mapping, index) => [index, mapping])),
    });
    expect(response.ok(), await response.text()).toBe(true);
  }
}
