import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient, HASHMAP, type Client } from "./support/client.js";
import {
  expectFault,
  seeder,
  snapshotHashmap,
  UNKNOWN_ID,
  type Seeder,
} from "./support/hashmap.js";
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

interface Deletable {
  collection: string;
  idKey: string;
  notFound: (id: string) => string;
  create: () => Promise<string>;
  /**
   * Rules are soft-deleted (CloudKitty master, docs/lifecycle.md): GET still shows one, with its
   * `deleted`, but lists leave it out and a second DELETE is a 404.
   */
  soft?: true;
}

const RESOURCES: Deletable[] = [
  {
    collection: "services",
    idKey: "service_id",
    notFound: (id) => `No such service: None (UUID: ${id})`,
    create: async () => (await seed.service()).service_id,
  },
  {
    collection: "fields",
    idKey: "field_id",
    notFound: (id) => `No such field: ${id}`,
    create: async () => (await seed.parents()).fieldId,
  },
  {
    collection: "mappings",
    idKey: "mapping_id",
    notFound: (id) => `No such mapping: ${id}`,
    soft: true,
    create: async () =>
      (await seed.mapping({ field_id: (await seed.parents()).fieldId, value: "m1.small" }))
        .mapping_id,
  },
  {
    collection: "thresholds",
    idKey: "threshold_id",
    notFound: (id) => `No such threshold: ${id}`,
    soft: true,
    create: async () =>
      (await seed.threshold({ field_id: (await seed.parents()).fieldId, level: "1" })).threshold_id,
  },
  {
    collection: "groups",
    idKey: "group_id",
    notFound: (id) => `No such group: None (UUID: ${id})`,
    create: async () => (await seed.group()).group_id,
  },
];

/** The three places a DELETE may carry the id: path, query string, JSON body on the collection. */
const ID_PLACES = [
  ["the path", (r: Deletable, id: string) => api.delete(`${HASHMAP}/${r.collection}/${id}`)],
  [
    "the query string",
    (r: Deletable, id: string) =>
      api.delete(`${HASHMAP}/${r.collection}`, { query: { [r.idKey]: id } }),
  ],
  [
    "a JSON body on the collection (the CLI's form)",
    (r: Deletable, id: string) =>
      api.delete(`${HASHMAP}/${r.collection}/`, { body: { [r.idKey]: id } }),
  ],
] as const;

describe.each(RESOURCES.map((resource) => [resource.collection, resource] as const))(
  "DELETE H/%s",
  (_collection, resource) => {
    it.each(ID_PLACES)("takes the id from %s: 204, empty body, gone", async (_, send) => {
      const id = await resource.create();
      const answer = await send(resource, id);
      expect(answer.status, answer.text).toBe(204);
      expect(answer.text).toBe("");
      if (resource.soft) {
        const shown = await api.get(`${HASHMAP}/${resource.collection}/${id}`);
        expect(shown.body.deleted).toEqual(expect.any(String));
        expect(shown.body.deleted_by).toBe("noauth");
        const list = await api.get(`${HASHMAP}/${resource.collection}`);
        expect(
          list.body[resource.collection].map((rule: any) => rule[resource.idKey]),
        ).not.toContain(id);
        expectFault(await send(resource, id), 404, resource.notFound(id));
        return;
      }
      expectFault(
        await api.get(`${HASHMAP}/${resource.collection}/${id}`),
        404,
        resource.notFound(id),
      );
    });

    it.each(ID_PLACES)("answers 404 for an unknown id in %s", async (_, send) => {
      expectFault(await send(resource, UNKNOWN_ID), 404, resource.notFound(UNKNOWN_ID));
    });

    it("answers 400 without an id", async () => {
      expectFault(
        await api.delete(`${HASHMAP}/${resource.collection}/`),
        400,
        `Missing argument: "${resource.idKey}"`,
      );
    });

    it("refuses an id that is not a UUID in the body", async () => {
      expectFault(
        await api.delete(`${HASHMAP}/${resource.collection}/`, {
          body: { [resource.idKey]: "compute" },
        }),
        400,
        `Invalid input for field/attribute ${resource.idKey}. Value: 'compute'. Invalid UUID, got 'compute'`,
      );
    });

    const url = `${HASHMAP}/${resource.collection}`;
    const ambiguous = [
      [
        "the query string and the body, the same id",
        (id: string) =>
          api.delete(`${url}/`, {
            query: { [resource.idKey]: id },
            body: { [resource.idKey]: id },
          }),
      ],
      [
        "the query string and the body, two ids",
        (id: string, other: string) =>
          api.delete(`${url}/`, {
            query: { [resource.idKey]: id },
            body: { [resource.idKey]: other },
          }),
      ],
      [
        "the path and the query string, two ids",
        (id: string, other: string) =>
          api.delete(`${url}/${id}`, { query: { [resource.idKey]: other } }),
      ],
      [
        "the path and the body, two ids",
        (id: string, other: string) =>
          api.delete(`${url}/${id}`, { body: { [resource.idKey]: other } }),
      ],
    ] as const;
    it.each(ambiguous)(
      "refuses an id given in %s with 400, and deletes nothing",
      async (_, send) => {
        const id = await resource.create();
        const other = await resource.create();
        const before = await snapshotHashmap(api);
        const answer = await send(id, other);
        expect(answer.status, answer.text).toBe(400);
        expect(answer.body.faultstring).toContain(resource.idKey);
        expect(await snapshotHashmap(api)).toEqual(before);
      },
    );

    it("accepts the same id in the path and the body", async () => {
      const id = await resource.create();
      const answer = await api.delete(`${HASHMAP}/${resource.collection}/${id}`, {
        body: { [resource.idKey]: id },
      });
      expect(answer.status).toBe(204);
    });

    it("refuses an unknown argument with 400, and deletes nothing", async () => {
      const id = await resource.create();
      expectFault(
        await api.delete(`${HASHMAP}/${resource.collection}/${id}`, { query: { foo: "1" } }),
        400,
        'Unknown argument: "foo"',
      );
      expectFault(
        await api.delete(`${HASHMAP}/${resource.collection}/`, {
          body: { [resource.idKey]: id, foo: 1 },
        }),
        400,
        'Unknown argument: "foo"',
      );
      expect((await api.get(`${HASHMAP}/${resource.collection}/${id}`)).status).toBe(200);
    });
  },
);

describe("DELETE H/groups/ with the CLI's JSON body", () => {
  async function groupWithMapping() {
    const group = await seed.group();
    const { fieldId } = await seed.parents();
    const mapping = await seed.mapping({
      field_id: fieldId,
      value: "m1.small",
      group_id: group.group_id,
    });
    return { groupId: group.group_id, mapping };
  }

  it("with recursive true deletes the group's rules", async () => {
    const { groupId, mapping } = await groupWithMapping();
    const answer = await api.delete(`${HASHMAP}/groups/`, {
      body: { group_id: groupId, recursive: true },
    });
    expect(answer.status).toBe(204);
    expect((await api.get(`${HASHMAP}/mappings/${mapping.mapping_id}`)).status).toBe(404);
  });

  it("with recursive false keeps them, with no group", async () => {
    const { groupId, mapping } = await groupWithMapping();
    const answer = await api.delete(`${HASHMAP}/groups/`, {
      body: { group_id: groupId, recursive: false },
    });
    expect(answer.status).toBe(204);
    expect((await api.get(`${HASHMAP}/mappings/${mapping.mapping_id}`)).body).toEqual({
      ...mapping,
      group_id: null,
    });
  });

  it("refuses recursive in both the query string and the body", async () => {
    const { groupId } = await groupWithMapping();
    const before = await snapshotHashmap(api);
    const answer = await api.delete(`${HASHMAP}/groups/`, {
      query: { recursive: "true" },
      body: { group_id: groupId, recursive: true },
    });
    expect(answer.status).toBe(400);
    expect(answer.body.faultstring).toContain("recursive");
    expect(await snapshotHashmap(api)).toEqual(before);
  });
});
