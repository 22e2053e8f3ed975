import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient, HASHMAP, type Client } from "./support/client.js";
import { expectFault, seeder, uniqueName, UNKNOWN_ID, type Seeder } from "./support/hashmap.js";
import { startServer, type TestServer } from "./support/server.js";

let server: TestServer;
let api: Client;
let seed: Seeder;
beforeAll(async () => {
  server = await startServer();
  api = createClient(server.baseUrl);
  seed = seeder(api);
});
afterAll(async () => {
  await server.stop();
});

describe("GET H/types", () => {
  it("lists the two mapping types as a bare JSON list", async () => {
    const answer = await api.get(`${HASHMAP}/types`);
    expect(answer.status).toBe(200);
    expect(answer.headers.get("content-type")).toBe("application/json");
    expect(answer.body).toEqual(["flat", "rate"]);
  });
});

describe("H/services", () => {
  it("creates a service with 201, its object and the Location of the new service", async () => {
    const name = uniqueName("compute");
    const answer = await api.post(`${HASHMAP}/services/`, { name });
    expect(answer.status).toBe(201);
    expect(Object.keys(answer.body)).toEqual(["service_id", "name"]);
    expect(answer.body.name).toBe(name);
    expect(answer.headers.get("location")).toBe(
      `${server.baseUrl}${HASHMAP}/services/${answer.body.service_id}`,
    );
  });

  it("ignores a client-supplied service_id on create", async () => {
    const chosen = "11111111-2222-4333-8444-555555555555";
    const answer = await api.post(`${HASHMAP}/services`, {
      name: uniqueName("chosen"),
      service_id: chosen,
    });
    expect(answer.status).toBe(201);
    expect(answer.body.service_id).not.toBe(chosen);
  });

  it("lists services in creation order and gets one by id", async () => {
    const first = await seed.service();
    const second = await seed.service();
    const { body: list } = await api.get(`${HASHMAP}/services`);
    const ids = list.services.map((service: { service_id: string }) => service.service_id);
    expect(ids.indexOf(first.service_id)).toBeLessThan(ids.indexOf(second.service_id));
    const answer = await api.get(`${HASHMAP}/services/${second.service_id}`);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual(second);
  });

  it("refuses a duplicate name with 409 naming the existing service", async () => {
    const existing = await seed.service();
    const answer = await api.post(`${HASHMAP}/services`, { name: existing.name });
    expectFault(
      answer,
      409,
      `Service ${existing.name} already exists (UUID: ${existing.service_id})`,
    );
  });

  it("answers 404 for an unknown id in the path", async () => {
    expectFault(
      await api.get(`${HASHMAP}/services/${UNKNOWN_ID}`),
      404,
      `No such service: None (UUID: ${UNKNOWN_ID})`,
    );
    expectFault(
      await api.get(`${HASHMAP}/services/not-a-uuid`),
      404,
      "No such service: None (UUID: not-a-uuid)",
    );
    expectFault(
      await api.delete(`${HASHMAP}/services/${UNKNOWN_ID}`),
      404,
      `No such service: None (UUID: ${UNKNOWN_ID})`,
    );
  });

  it("deletes a service with its fields, their rules and its own rules", async () => {
    const { serviceId, fieldId } = await seed.parents();
    const group = await seed.group();
    const rules = [
      await seed.mapping({ service_id: serviceId }),
      await seed.mapping({ field_id: fieldId, value: "m1.small", group_id: group.group_id }),
      await seed.threshold({ service_id: serviceId, level: "10" }),
      await seed.threshold({ field_id: fieldId, level: "5", tenant_id: "tenant-a" }),
    ];
    const bystander = await seed.parents();
    const untouched = await seed.mapping({ service_id: bystander.serviceId });

    const answer = await api.delete(`${HASHMAP}/services/${serviceId}`);
    expect(answer.status).toBe(204);
    expect(answer.text).toBe("");

    expect((await api.get(`${HASHMAP}/services/${serviceId}`)).status).toBe(404);
    expect((await api.get(`${HASHMAP}/fields/${fieldId}`)).status).toBe(404);
    expect((await api.get(`${HASHMAP}/fields`, { query: { service_id: serviceId } })).body).toEqual(
      { fields: [] },
    );
    for (const rule of rules) {
      const path = rule.mapping_id
        ? `mappings/${rule.mapping_id}`
        : `thresholds/${rule.threshold_id}`;
      expect((await api.get(`${HASHMAP}/${path}`)).status, path).toBe(404);
    }
    expect(
      (await api.get(`${HASHMAP}/groups/mappings`, { query: { group_id: group.group_id } })).body,
    ).toEqual({ mappings: [] });
    expect((await api.get(`${HASHMAP}/groups/${group.group_id}`)).status).toBe(200);
    expect((await api.get(`${HASHMAP}/mappings/${untouched.mapping_id}`)).body).toEqual(untouched);
  });
});

describe("H/fields", () => {
  it("creates a field with 201 and Location, gets it and lists it under its service only", async () => {
    const service = await seed.service();
    const other = await seed.service();
    const answer = await api.post(`${HASHMAP}/fields/`, {
      name: "flavor",
      service_id: service.service_id,
    });
    expect(answer.status).toBe(201);
    expect(Object.keys(answer.body)).toEqual(["field_id", "name", "service_id"]);
    expect(answer.body).toMatchObject({ name: "flavor", service_id: service.service_id });
    expect(answer.headers.get("location")).toBe(
      `${server.baseUrl}${HASHMAP}/fields/${answer.body.field_id}`,
    );

    expect((await api.get(`${HASHMAP}/fields/${answer.body.field_id}`)).body).toEqual(answer.body);
    expect(
      (await api.get(`${HASHMAP}/fields`, { query: { service_id: service.service_id } })).body,
    ).toEqual({
      fields: [answer.body],
    });
    expect(
      (await api.get(`${HASHMAP}/fields`, { query: { service_id: other.service_id } })).body,
    ).toEqual({ fields: [] });
  });

  it("needs service_id to list", async () => {
    expectFault(await api.get(`${HASHMAP}/fields`), 400, 'Missing argument: "service_id"');
  });

  it("lists nothing for an unknown service", async () => {
    const answer = await api.get(`${HASHMAP}/fields`, { query: { service_id: "unknown" } });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ fields: [] });
  });

  it("keeps names unique per service, and allows the same name in another service", async () => {
    const service = await seed.service();
    const existing = await seed.field(service.service_id, "flavor");
    expectFault(
      await api.post(`${HASHMAP}/fields`, { name: "flavor", service_id: service.service_id }),
      409,
      `Field flavor already exists (UUID: ${existing.field_id})`,
    );
    const other = await seed.service();
    const answer = await api.post(`${HASHMAP}/fields`, {
      name: "flavor",
      service_id: other.service_id,
    });
    expect(answer.status).toBe(201);
  });

  it("refuses a field of an unknown service with 400", async () => {
    expectFault(
      await api.post(`${HASHMAP}/fields`, { name: "flavor", service_id: UNKNOWN_ID }),
      400,
      `No such service: None (UUID: ${UNKNOWN_ID})`,
    );
  });

  it("answers 404 for an unknown field id in the path", async () => {
    expectFault(
      await api.get(`${HASHMAP}/fields/${UNKNOWN_ID}`),
      404,
      `No such field: ${UNKNOWN_ID}`,
    );
    expectFault(
      await api.delete(`${HASHMAP}/fields/${UNKNOWN_ID}`),
      404,
      `No such field: ${UNKNOWN_ID}`,
    );
  });

  it("deletes a field with its mappings and thresholds, and leaves its service's rules", async () => {
    const { serviceId, fieldId } = await seed.parents();
    const fieldMapping = await seed.mapping({ field_id: fieldId, value: "m1.small" });
    const fieldThreshold = await seed.threshold({ field_id: fieldId, level: "3" });
    const serviceMapping = await seed.mapping({ service_id: serviceId });

    expect((await api.delete(`${HASHMAP}/fields/${fieldId}`)).status).toBe(204);

    expect((await api.get(`${HASHMAP}/fields/${fieldId}`)).status).toBe(404);
    expect((await api.get(`${HASHMAP}/mappings/${fieldMapping.mapping_id}`)).status).toBe(404);
    expect((await api.get(`${HASHMAP}/thresholds/${fieldThreshold.threshold_id}`)).status).toBe(
      404,
    );
    expect(
      (await api.get(`${HASHMAP}/mappings`, { query: { service_id: serviceId } })).body,
    ).toEqual({
      mappings: [serviceMapping],
    });
  });
});
