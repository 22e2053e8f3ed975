import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient, HASHMAP, type ApiResponse, type Client } from "./support/client.js";
import { seeder, uniqueName, type Seeder } from "./support/hashmap.js";
import { startServer, type TestServer } from "./support/server.js";

// Uniqueness must hold when identical creates race, not only when they arrive one by one.

const PARALLEL = 20;

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

/** Sends the same create PARALLEL times at once; exactly one may win, the others get a 409. */
async function raceCreates(
  collection: string,
  body: Record<string, unknown>,
): Promise<ApiResponse[]> {
  const answers = await Promise.all(
    Array.from({ length: PARALLEL }, () => api.post(`${HASHMAP}/${collection}`, body)),
  );
  const statuses = answers.map((answer) => answer.status).sort();
  expect(statuses).toEqual([201, ...Array<number>(PARALLEL - 1).fill(409)]);
  for (const answer of answers.filter((a) => a.status === 409)) {
    expect(answer.body).toEqual({
      faultcode: "Client",
      faultstring: expect.stringContaining("already exists"),
      debuginfo: null,
    });
  }
  return answers;
}

const winner = (answers: ApiResponse[]) => answers.find((answer) => answer.status === 201)!.body;

describe(`${PARALLEL} identical requests at once`, () => {
  it("create one service", async () => {
    const name = uniqueName("raced");
    const answers = await raceCreates("services", { name });
    const { body } = await api.get(`${HASHMAP}/services`);
    expect(body.services.filter((service: { name: string }) => service.name === name)).toEqual([
      winner(answers),
    ]);
  });

  it("create one field", async () => {
    const service = await seed.service();
    const answers = await raceCreates("fields", { name: "flavor", service_id: service.service_id });
    const { body } = await api.get(`${HASHMAP}/fields`, {
      query: { service_id: service.service_id },
    });
    expect(body.fields).toEqual([winner(answers)]);
  });

  it("create one group", async () => {
    const name = uniqueName("raced");
    const answers = await raceCreates("groups", { name });
    const { body } = await api.get(`${HASHMAP}/groups`);
    expect(body.groups.filter((group: { name: string }) => group.name === name)).toEqual([
      winner(answers),
    ]);
  });

  it.each([
    ["without a tenant", {}],
    ["with a tenant", { tenant_id: "tenant-a" }],
  ])("create one mapping %s", async (_, tenant) => {
    const { fieldId } = await seed.parents();
    const answers = await raceCreates("mappings", {
      field_id: fieldId,
      value: "m1.small",
      cost: "1",
      ...tenant,
    });
    const { body } = await api.get(`${HASHMAP}/mappings`, { query: { field_id: fieldId } });
    expect(body.mappings).toEqual([winner(answers)]);
  });

  it("create one service mapping without a tenant or a group", async () => {
    const { serviceId } = await seed.parents();
    const answers = await raceCreates("mappings", { service_id: serviceId, cost: "1" });
    const { body } = await api.get(`${HASHMAP}/mappings`, { query: { service_id: serviceId } });
    expect(body.mappings).toEqual([winner(answers)]);
  });

  it("create one threshold", async () => {
    const { fieldId } = await seed.parents();
    const answers = await raceCreates("thresholds", { field_id: fieldId, level: "10", cost: "1" });
    const { body } = await api.get(`${HASHMAP}/thresholds`, { query: { field_id: fieldId } });
    expect(body.thresholds).toEqual([winner(answers)]);
  });

  it("delete a service once: one 204, 404 for the rest", async () => {
    const service = await seed.service();
    const answers = await Promise.all(
      Array.from({ length: PARALLEL }, () =>
        api.delete(`${HASHMAP}/services/${service.service_id}`),
      ),
    );
    const statuses = answers.map((answer) => answer.status).sort();
    expect(statuses).toEqual([204, ...Array<number>(PARALLEL - 1).fill(404)]);
  });
});
