import { expect } from "vitest";
import { HASHMAP, type ApiResponse, type Client } from "./client.js";

/** A well-formed UUID that no object has: unknown ids must answer 404 (path) or 400 (body). */
export const UNKNOWN_ID = "00000000-0000-4000-8000-000000000000";

let sequence = 0;
/** Names never reused within a test run, so tests do not depend on each other's data. */
export function uniqueName(prefix: string): string {
  sequence += 1;
  return `${prefix}-${sequence}`;
}

/** Asserts CloudKitty's fault shape, with the exact status and message. */
export function expectFault(
  answer: ApiResponse,
  status: number,
  faultstring: string | RegExp,
): void {
  expect({ status: answer.status, body: answer.body }).toEqual({
    status,
    body: {
      faultcode: status >= 500 ? "Server" : "Client",
      faultstring:
        typeof faultstring === "string" ? faultstring : expect.stringMatching(faultstring),
      debuginfo: null,
    },
  });
  expect(answer.headers.get("content-type")).toBe("application/json");
}

/** Asserts a 201 and returns the created object. */
export function expectCreated(answer: ApiResponse): any {
  expect(answer.status, answer.text).toBe(201);
  return answer.body;
}

export interface SeededParents {
  serviceId: string;
  fieldId: string;
}

/** Creates hashmap objects over REST; every helper fails the test unless the server answers 201. */
export function seeder(api: Client) {
  const create = async (collection: string, body: Record<string, unknown>) =>
    expectCreated(await api.post(`${HASHMAP}/${collection}`, body));
  return {
    service: (name = uniqueName("service")) => create("services", { name }),
    field: (serviceId: string, name = uniqueName("field")) =>
      create("fields", { name, service_id: serviceId }),
    group: (name = uniqueName("group")) => create("groups", { name }),
    mapping: (body: Record<string, unknown>) => create("mappings", { cost: "1", ...body }),
    threshold: (body: Record<string, unknown>) => create("thresholds", { cost: "1", ...body }),
    rule: (kind: RuleKind, body: Record<string, unknown>) =>
      create(kind.collection, { cost: "1", ...body }),
    /** A fresh service with one field: the two kinds of parent a rule can have. */
    async parents(): Promise<SeededParents> {
      const service = await create("services", { name: uniqueName("service") });
      const field = await create("fields", {
        name: uniqueName("field"),
        service_id: service.service_id,
      });
      return { serviceId: service.service_id, fieldId: field.field_id };
    },
  };
}

export type Seeder = ReturnType<typeof seeder>;

/** Every hashmap object, read over REST: compare two snapshots to prove a request changed nothing. */
export async function snapshotHashmap(api: Client) {
  const read = async (path: string, query?: Record<string, string>) => {
    const answer = await api.get(`${HASHMAP}/${path}`, query ? { query } : undefined);
    expect(answer.status, answer.text).toBe(200);
    return answer.body;
  };
  const { services } = await read("services");
  const fields = await Promise.all(
    services.map(
      async (service: { service_id: string }) =>
        (await read("fields", { service_id: service.service_id })).fields,
    ),
  );
  return {
    services,
    fields: fields.flat(),
    groups: (await read("groups")).groups,
    mappings: (await read("mappings")).mappings,
    thresholds: (await read("thresholds")).thresholds,
  };
}

/** The two kinds of rule, for tests that hold for both. */
export interface RuleKind {
  collection: "mappings" | "thresholds";
  idKey: "mapping_id" | "threshold_id";
  /** Singular, as messages name it. */
  noun: "Mapping" | "Threshold";
  /** What tells one rule of a parent from another: a mapping's value, a threshold's level. */
  key(key: string): Record<string, string>;
  /** A rule body without cost on the service or the field of `parents`. */
  identity(parents: SeededParents, on: "service" | "field", key: string): Record<string, unknown>;
}

export const MAPPINGS: RuleKind = {
  collection: "mappings",
  idKey: "mapping_id",
  noun: "Mapping",
  key: (key) => ({ value: key }),
  // A service mapping has no value.
  identity: (parents, on, key) =>
    on === "service"
      ? { service_id: parents.serviceId }
      : { field_id: parents.fieldId, value: key },
};

export const THRESHOLDS: RuleKind = {
  collection: "thresholds",
  idKey: "threshold_id",
  noun: "Threshold",
  key: (key) => ({ level: key }),
  identity: (parents, on, key) =>
    on === "service"
      ? { service_id: parents.serviceId, level: key }
      : { field_id: parents.fieldId, level: key },
};

export const RULE_KINDS = [MAPPINGS, THRESHOLDS];
