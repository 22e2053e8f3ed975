import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient, HASHMAP, type Client } from "./support/client.js";
import { expectFault, seeder, uniqueName } from "./support/hashmap.js";
import { startServer, type TestServer } from "./support/server.js";

const QUOTE = "/v1/rating/quote";

let server: TestServer;
let api: Client;
let seed: ReturnType<typeof seeder>;

beforeAll(async () => {
  server = await startServer();
  api = createClient(server.baseUrl);
  seed = seeder(api);
});
afterAll(async () => {
  await server.stop();
});

/** CloudKitty's documented volume example: 0.001 per GiB, 0.98 from 50 GiB, 0.95 from 200 GiB. */
async function seedVolumeExample(): Promise<string> {
  const name = uniqueName("volume.size");
  const service = await seed.service(name);
  await seed.mapping({ service_id: service.service_id, cost: "0.001" });
  await seed.threshold({ service_id: service.service_id, level: "50", type: "rate", cost: "0.98" });
  await seed.threshold({
    service_id: service.service_id,
    level: "200",
    type: "rate",
    cost: "0.95",
  });
  return name;
}

const quoteBody = (service: string, volume: unknown, desc: Record<string, unknown> = {}) => ({
  resources: [{ service, desc, volume }],
});

describe("POST /v1/rating/quote", () => {
  it.each([
    ["20", "0.02"],
    ["50", "0.049"],
    ["80", "0.0784"],
    ["250", "0.2375"],
  ])(
    "prices %s GiB of CloudKitty's volume example at %s, as a bare JSON number",
    async (volume, price) => {
      const service = await seedVolumeExample();
      const answer = await api.post(QUOTE, quoteBody(service, Number(volume)));
      expect(answer.status).toBe(200);
      expect(answer.text).toBe(price);
    },
  );

  it("sums several resources and prices an unknown service at 0", async () => {
    const service = await seedVolumeExample();
    const answer = await api.post(QUOTE, {
      resources: [
        { service, desc: {}, volume: "20" },
        { service, desc: {}, volume: "250" },
        { service: uniqueName("unknown"), desc: {}, volume: "1000" },
      ],
    });
    expect(answer.text).toBe("0.2575");
  });

  it("reads field metadata from desc.metadata and desc.groupby, or from a plain desc", async () => {
    const name = uniqueName("instance");
    const service = await seed.service(name);
    const flavor = await seed.field(service.service_id, "flavor_id");
    const project = await seed.field(service.service_id, "project_id");
    await seed.mapping({ field_id: flavor.field_id, value: "m1.small", cost: "2" });
    await seed.mapping({ field_id: project.field_id, value: "p1", type: "rate", cost: "1.5" });
    const metadataAndGroupby = {
      metadata: { flavor_id: "m1.small" },
      groupby: { project_id: "p1" },
    };
    expect((await api.post(QUOTE, quoteBody(name, 2, metadataAndGroupby))).text).toBe("6");
    expect((await api.post(QUOTE, quoteBody(name, 2, { flavor_id: "m1.small" }))).text).toBe("4");
    expect((await api.post(QUOTE, quoteBody(name, 2, { flavor_id: "m1.large" }))).text).toBe("0");
  });

  it("sees every rule change at once: a write invalidates the cached rule set", async () => {
    const name = uniqueName("cached");
    const service = await seed.service(name);
    const mapping = await seed.mapping({ service_id: service.service_id, cost: "1" });
    expect((await api.post(QUOTE, quoteBody(name, 3))).text).toBe("3");
    const updated = await api.put(`${HASHMAP}/mappings/${mapping.mapping_id}`, { cost: "2" });
    expect(updated.status).toBe(200);
    expect((await api.post(QUOTE, quoteBody(name, 3))).text).toBe("6");
    expect((await api.delete(`${HASHMAP}/services/${service.service_id}`)).status).toBe(204);
    expect((await api.post(QUOTE, quoteBody(name, 3))).text).toBe("0");
  });

  it("prices nothing while the hashmap module is disabled", async () => {
    const service = await seedVolumeExample();
    const disable = await api.put("/v1/rating/modules/hashmap", { enabled: false });
    expect(disable.status).toBe(200);
    try {
      expect((await api.post(QUOTE, quoteBody(service, "20"))).text).toBe("0");
    } finally {
      await api.put("/v1/rating/modules/hashmap", { enabled: true });
    }
    expect((await api.post(QUOTE, quoteBody(service, "20"))).text).toBe("0.02");
  });

  it.each([
    ["malformed JSON", '{"resources": [', 400, "Request is not in valid JSON format"],
    ["a JSON array", "[]", 400, "Request body must be a JSON object"],
    [
      "no resources",
      {},
      400,
      "Invalid input for field/attribute resources. Value: 'None'. Mandatory field missing.",
    ],
    [
      "a resource without volume",
      { resources: [{ service: "x" }] },
      400,
      /resources\.0\.volume.*Mandatory field missing/,
    ],
    ["a non-numeric volume", quoteBody("x", "lots"), 400, /resources\.0\.volume\. Value: 'lots'/],
    [
      "an unknown attribute",
      { resources: [], foo: 1 },
      400,
      "Unknown attribute for argument res_data: foo",
    ],
  ])("answers %s with a 400 fault", async (_case, body, status, message) => {
    expectFault(await api.post(QUOTE, body), status, message);
  });
});

describe("POST .../hashmap/preview", () => {
  it("explains a price per group with the threshold applied and the matching rules", async () => {
    const name = await seedVolumeExample();
    const answer = await api.post(`${HASHMAP}/preview`, { service: name, volume: "80" });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({
      service: name,
      tenant: null,
      service_known: true,
      total: "0.0784",
      groups: [
        {
          group_id: null,
          flat: "0.001",
          rate: "1",
          price: "0.0784",
          threshold: { kind: "service", type: "rate", cost: "0.98" },
        },
      ],
    });
    expect(answer.body.groups[0].mapping_ids).toHaveLength(1);
  });

  it("applies a tenant's rules over the global ones", async () => {
    const name = uniqueName("tenanted");
    const service = await seed.service(name);
    await seed.mapping({ service_id: service.service_id, cost: "1" });
    await seed.mapping({ service_id: service.service_id, cost: "5", tenant_id: "gold" });
    const preview = (tenant_id?: string) =>
      api.post(`${HASHMAP}/preview`, {
        service: name,
        volume: "2",
        ...(tenant_id && { tenant_id }),
      });
    expect((await preview()).body.total).toBe("2");
    expect((await preview("gold")).body.total).toBe("10");
  });

  it("answers bad input with a 400 fault", async () => {
    expectFault(
      await api.post(`${HASHMAP}/preview`, { service: "x", volume: "NaN" }),
      400,
      /volume\. Value: 'NaN'/,
    );
  });
});

describe("GET .../hashmap/warnings", () => {
  it("warns about a group with rate rules and no flat rule", async () => {
    const service = await seed.service();
    const group = await seed.group();
    const rate = await seed.mapping({
      service_id: service.service_id,
      type: "rate",
      cost: "2",
      group_id: group.group_id,
    });
    const answer = await api.get(`${HASHMAP}/warnings`, {
      query: { service_id: service.service_id },
    });
    expect(answer.status).toBe(200);
    expect(answer.body.warnings).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          group_id: group.group_id,
          rule_ids: expect.arrayContaining([rate.mapping_id]),
        }),
      ]),
    );
  });
});
