import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient, HASHMAP, type Client } from "./support/client.js";
import {
  expectFault,
  MAPPINGS,
  RULE_KINDS,
  seeder,
  snapshotHashmap,
  UNKNOWN_ID,
  type Seeder,
  type SeededParents,
} from "./support/hashmap.js";
import { startServer, type TestServer } from "./support/server.js";

/** A create that must be refused: what it is, its body on fresh parents, the message. */
type RefusedCreate = [
  description: string,
  body: (parents: SeededParents) => Record<string, unknown>,
  faultstring: string,
];

const mappingOnlyCases: RefusedCreate[] = [
  [
    "a field mapping without a value",
    (p) => ({ field_id: p.fieldId, cost: 1 }),
    "You must specify a value for a field mapping.",
  ],
  [
    "a field mapping with an empty value",
    (p) => ({ field_id: p.fieldId, value: "", cost: 1 }),
    "You must specify a value for a field mapping.",
  ],
  [
    "a service mapping with a value",
    (p) => ({ service_id: p.serviceId, value: "m1.small", cost: 1 }),
    "You can't specify a value and a service_id.",
  ],
];
const thresholdOnlyCases: RefusedCreate[] = [
  [
    "a threshold without a level",
    (p) => ({ field_id: p.fieldId, cost: 1 }),
    "Invalid input for field/attribute level. Value: 'None'. Mandatory field missing.",
  ],
];

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

describe.each(RULE_KINDS.map((kind) => [kind.collection, kind] as const))(
  "H/%s",
  (_collection, kind) => {
    const collection = `${HASHMAP}/${kind.collection}`;
    const noSuch = (id: string) => `No such ${kind.noun.toLowerCase()}: ${id}`;
    const bodyName = `${kind.noun.toLowerCase()}_data`;
    let parents: SeededParents;
    beforeAll(async () => {
      parents = await seed.parents();
    });

    describe("create and get", () => {
      it.each(["service", "field"] as const)(
        "creates a %s rule with 201, Location and the defaults",
        async (on) => {
          const fresh = await seed.parents();
          const answer = await api.post(`${collection}/`, {
            ...kind.identity(fresh, on, "42"),
            cost: "0.5",
          });
          expect(answer.status).toBe(201);
          const id = answer.body[kind.idKey];
          expect(answer.headers.get("location")).toBe(`${server.baseUrl}${collection}/${id}`);
          expect(Object.keys(answer.body)).toEqual([
            kind.idKey,
            kind === MAPPINGS ? "value" : "level",
            "type",
            "cost",
            "service_id",
            "field_id",
            "group_id",
            "tenant_id",
            // CloudKitty master's lifecycle (docs/lifecycle.md), after CloudKitty 17's keys.
            "created_at",
            "start",
            "end",
            "name",
            "description",
            "deleted",
            "created_by",
            "updated_by",
            "deleted_by",
          ]);
          expect(answer.body).toMatchObject({
            type: "flat",
            cost: "0.5000000000000000000000000000",
            service_id: on === "service" ? fresh.serviceId : null,
            field_id: on === "field" ? fresh.fieldId : null,
            group_id: null,
            tenant_id: null,
          });
          expect((await api.get(`${collection}/${id}`)).body).toEqual(answer.body);
        },
      );

      it("keeps type, group and tenant as given", async () => {
        const group = await seed.group();
        const answer = await api.post(collection, {
          ...kind.identity(parents, "field", "43"),
          cost: 2,
          type: "rate",
          group_id: group.group_id,
          tenant_id: "tenant-a",
        });
        expect(answer.status).toBe(201);
        expect(answer.body).toMatchObject({
          type: "rate",
          group_id: group.group_id,
          tenant_id: "tenant-a",
        });
      });

      it("ignores a client-supplied id", async () => {
        const chosen = "11111111-2222-4333-8444-555555555555";
        const answer = await api.post(collection, {
          ...kind.identity(parents, "field", "44"),
          cost: 1,
          [kind.idKey]: chosen,
        });
        expect(answer.status).toBe(201);
        expect(answer.body[kind.idKey]).not.toBe(chosen);
      });

      it("answers 404 for an unknown id in the path", async () => {
        expectFault(await api.get(`${collection}/${UNKNOWN_ID}`), 404, noSuch(UNKNOWN_ID));
        expectFault(await api.get(`${collection}/unknown`), 404, noSuch("unknown"));
        expectFault(await api.delete(`${collection}/${UNKNOWN_ID}`), 404, noSuch(UNKNOWN_ID));
      });
    });

    describe("create refuses, with 400 and nothing created", () => {
      const cases: RefusedCreate[] = [
        [
          "two parents",
          (p) => ({ ...kind.identity(p, "field", "1"), service_id: p.serviceId, cost: 1 }),
          "You can only specify one parent.",
        ],
        ["no parent", () => ({ ...kind.key("1"), cost: 1 }), "You must specify one parent."],
        [
          "no cost",
          (p) => kind.identity(p, "field", "1"),
          "Invalid input for field/attribute cost. Value: 'None'. Mandatory field missing.",
        ],
        [
          "an unknown service",
          (p) => ({ ...kind.identity(p, "service", "1"), service_id: UNKNOWN_ID, cost: 1 }),
          `No such service: None (UUID: ${UNKNOWN_ID})`,
        ],
        [
          "an unknown field",
          (p) => ({ ...kind.identity(p, "field", "1"), field_id: UNKNOWN_ID, cost: 1 }),
          `No such field: ${UNKNOWN_ID}`,
        ],
        [
          "an unknown group",
          (p) => ({ ...kind.identity(p, "field", "1"), group_id: UNKNOWN_ID, cost: 1 }),
          `No such group: None (UUID: ${UNKNOWN_ID})`,
        ],
        [
          "a service_id that is not a UUID",
          (p) => ({ ...kind.identity(p, "service", "1"), service_id: "compute", cost: 1 }),
          "Invalid input for field/attribute service_id. Value: 'compute'. Invalid UUID, got 'compute'",
        ],
        [
          "a group_id that is not a UUID",
          (p) => ({ ...kind.identity(p, "field", "1"), group_id: "g1", cost: 1 }),
          "Invalid input for field/attribute group_id. Value: 'g1'. Invalid UUID, got 'g1'",
        ],
        [
          "a type that is neither flat nor rate",
          (p) => ({ ...kind.identity(p, "field", "1"), type: "fixed", cost: 1 }),
          "Invalid input for field/attribute type. Value: 'fixed'. Value should be one of: flat, rate",
        ],
        [
          "an unknown attribute",
          (p) => ({ ...kind.identity(p, "field", "1"), cost: 1, foo: "bar" }),
          `Unknown attribute for argument ${bodyName}: foo`,
        ],
        ...(kind === MAPPINGS ? mappingOnlyCases : thresholdOnlyCases),
      ];
      it.each(cases)("%s", async (_, body, message) => {
        const fresh = await seed.parents();
        const before = await snapshotHashmap(api);
        expectFault(await api.post(collection, body(fresh)), 400, message);
        expect(await snapshotHashmap(api)).toEqual(before);
      });
    });

    describe("list filters", () => {
      // serviceRule: on the service; grouped: field rule in the group; tenantA: field rule of
      // tenant-a; groupedTenantB: field rule of tenant-b in the group.
      let fixture: {
        parents: SeededParents;
        groupId: string;
        serviceRule: unknown;
        grouped: unknown;
        tenantA: unknown;
        groupedTenantB: unknown;
      };
      beforeAll(async () => {
        const p = await seed.parents();
        const group = await seed.group();
        fixture = {
          parents: p,
          groupId: group.group_id,
          serviceRule: await seed.rule(kind, kind.identity(p, "service", "1")),
          grouped: await seed.rule(kind, {
            ...kind.identity(p, "field", "1"),
            group_id: group.group_id,
          }),
          tenantA: await seed.rule(kind, {
            ...kind.identity(p, "field", "2"),
            tenant_id: "tenant-a",
          }),
          groupedTenantB: await seed.rule(kind, {
            ...kind.identity(p, "field", "3"),
            tenant_id: "tenant-b",
            group_id: group.group_id,
          }),
        };
      });

      type Fixture = typeof fixture;
      const filters: [string, (f: Fixture) => Record<string, string>, (f: Fixture) => unknown[]][] =
        [
          ["service_id", (f) => ({ service_id: f.parents.serviceId }), (f) => [f.serviceRule]],
          [
            "field_id",
            (f) => ({ field_id: f.parents.fieldId }),
            (f) => [f.grouped, f.tenantA, f.groupedTenantB],
          ],
          ["group_id", (f) => ({ group_id: f.groupId }), (f) => [f.grouped, f.groupedTenantB]],
          [
            "field_id and no_group",
            (f) => ({ field_id: f.parents.fieldId, no_group: "True" }),
            (f) => [f.tenantA],
          ],
          [
            "tenant_id without filter_tenant (ignored)",
            (f) => ({ field_id: f.parents.fieldId, tenant_id: "tenant-a" }),
            (f) => [f.grouped, f.tenantA, f.groupedTenantB],
          ],
          [
            "tenant_id with filter_tenant",
            (f) => ({ field_id: f.parents.fieldId, tenant_id: "tenant-a", filter_tenant: "True" }),
            (f) => [f.tenantA],
          ],
          [
            "filter_tenant alone (only rules without a tenant)",
            (f) => ({ field_id: f.parents.fieldId, filter_tenant: "True" }),
            (f) => [f.grouped],
          ],
          [
            "group_id and tenant_id with filter_tenant",
            (f) => ({ group_id: f.groupId, tenant_id: "tenant-b", filter_tenant: "true" }),
            (f) => [f.groupedTenantB],
          ],
          ["an unknown service_id", () => ({ service_id: "unknown" }), () => []],
          ["an unknown field_id", () => ({ field_id: UNKNOWN_ID }), () => []],
          ["an unknown group_id", () => ({ group_id: UNKNOWN_ID }), () => []],
        ];
      it.each(filters)("by %s", async (_, query, expected) => {
        const answer = await api.get(collection, { query: query(fixture) });
        expect(answer.status).toBe(200);
        expect(answer.body).toEqual({ [kind.collection]: expected(fixture) });
      });
    });

    describe("PUT", () => {
      let groupId: string;
      let otherGroupId: string;
      beforeAll(async () => {
        groupId = (await seed.group()).group_id;
        otherGroupId = (await seed.group()).group_id;
      });
      /** A field rule with every attribute set, so a PUT that drops one shows it. */
      const seedFullRule = async () =>
        seed.rule(kind, {
          ...kind.identity(await seed.parents(), "field", "5"),
          type: "rate",
          cost: "3",
          tenant_id: "tenant-a",
          group_id: groupId,
        });
      const changes = kind.key("6");

      it.each([
        ["the path", (id: string) => api.put(`${collection}/${id}`, { ...changes, cost: "4" })],
        [
          "the query",
          (id: string) =>
            api.put(collection, { ...changes, cost: "4" }, { query: { [kind.idKey]: id } }),
        ],
        [
          "the body of PUT on the collection (the CLI's form)",
          (id: string) => api.put(`${collection}/`, { ...changes, [kind.idKey]: id, cost: "4" }),
        ],
      ])(
        "takes the id from %s, answers 200 with the updated object, which GET then shows",
        async (_, put) => {
          const rule = await seedFullRule();
          const answer = await put(rule[kind.idKey]);
          expect(answer.status, answer.text).toBe(200);
          const expected = {
            ...rule,
            ...(kind === MAPPINGS ? { value: "6" } : { level: "6.00000000" }),
            cost: "4.0000000000000000000000000000",
            type: "flat",
            tenant_id: null,
            updated_by: "noauth",
          };
          expect(answer.body).toEqual(expected);
          expect((await api.get(`${collection}/${rule[kind.idKey]}`)).body).toEqual(expected);
        },
      );

      it.each([
        [
          "on the collection (the CLI)",
          (body: Record<string, unknown>) => api.put(`${collection}/`, body),
        ],
        [
          "with the id in the path",
          (body: Record<string, unknown>) =>
            api.put(`${collection}/${String(body[kind.idKey])}`, body),
        ],
        [
          "with the id in the query",
          (body: Record<string, unknown>) =>
            api.put(collection, body, { query: { [kind.idKey]: String(body[kind.idKey]) } }),
        ],
      ])("takes the whole object back %s: GET it, edit it, PUT it", async (_, put) => {
        const rule = await seedFullRule();
        const { body: current } = await api.get(`${collection}/${rule[kind.idKey]}`);
        const answer = await put({ ...current, cost: "9.5" });
        expect(answer.status, answer.text).toBe(200);
        expect(answer.body).toEqual({
          ...rule,
          cost: "9.5000000000000000000000000000",
          updated_by: "noauth",
        });
      });

      it.each([
        [
          "the path and the body",
          (id: string, other: string) =>
            api.put(`${collection}/${id}`, { ...changes, cost: 1, [kind.idKey]: other }),
        ],
        [
          "the query and the body",
          (id: string, other: string) =>
            api.put(
              collection,
              { ...changes, cost: 1, [kind.idKey]: other },
              { query: { [kind.idKey]: id } },
            ),
        ],
        [
          "the path and the query",
          (id: string, other: string) =>
            api.put(
              `${collection}/${id}`,
              { ...changes, cost: 1 },
              { query: { [kind.idKey]: other } },
            ),
        ],
      ])("refuses two different ids in %s with 400, and changes nothing", async (_, put) => {
        const rule = await seedFullRule();
        const other = await seedFullRule();
        const answer = await put(rule[kind.idKey], other[kind.idKey]);
        expect(answer.status, answer.text).toBe(400);
        expect(answer.body.faultstring).toContain(
          `Parameter "${kind.idKey}" is given twice with different values`,
        );
        expect((await api.get(`${collection}/${rule[kind.idKey]}`)).body).toEqual(rule);
        expect((await api.get(`${collection}/${other[kind.idKey]}`)).body).toEqual(other);
      });

      it.each([
        ["omitted keeps the group", () => ({}), () => groupId],
        ["null removes the group", () => ({ group_id: null }), () => null],
        ["set to another group moves it", () => ({ group_id: otherGroupId }), () => otherGroupId],
      ])("group_id %s", async (_, groupChange, expectedGroup) => {
        const rule = await seedFullRule();
        const answer = await api.put(`${collection}/${rule[kind.idKey]}`, {
          ...kind.key("5"),
          cost: "3",
          ...groupChange(),
        });
        expect(answer.status, answer.text).toBe(200);
        expect(answer.body.group_id).toBe(expectedGroup());
      });

      it("sets a group on a rule that had none", async () => {
        const rule = await seed.rule(kind, kind.identity(await seed.parents(), "field", "5"));
        const answer = await api.put(`${collection}/${rule[kind.idKey]}`, {
          ...kind.key("5"),
          cost: "1",
          group_id: groupId,
        });
        expect(answer.body.group_id).toBe(groupId);
      });

      it("never changes the parent", async () => {
        const rule = await seedFullRule();
        const elsewhere = await seed.parents();
        const answer = await api.put(`${collection}/${rule[kind.idKey]}`, {
          ...kind.key("5"),
          field_id: elsewhere.fieldId,
          cost: "3",
          type: "rate",
          tenant_id: "tenant-a",
        });
        expect(answer.status).toBe(200);
        expect(answer.body).toEqual({ ...rule, updated_by: "noauth" });
      });

      it("answers 404 for an unknown id and 400 without an id", async () => {
        expectFault(
          await api.put(`${collection}/${UNKNOWN_ID}`, { ...changes, cost: 1 }),
          404,
          noSuch(UNKNOWN_ID),
        );
        expectFault(
          await api.put(`${collection}/`, { ...changes, cost: 1, [kind.idKey]: UNKNOWN_ID }),
          404,
          noSuch(UNKNOWN_ID),
        );
        expectFault(
          await api.put(`${collection}/`, { ...changes, cost: 1 }),
          400,
          `Missing argument: "${kind.idKey}"`,
        );
      });

      it("refuses a PUT without cost, and changes nothing", async () => {
        const rule = await seedFullRule();
        expectFault(
          await api.put(`${collection}/${rule[kind.idKey]}`, changes),
          400,
          "Invalid input for field/attribute cost. Value: 'None'. Mandatory field missing.",
        );
        expect((await api.get(`${collection}/${rule[kind.idKey]}`)).body).toEqual(rule);
      });

      it("refuses an unknown group with 400, and changes nothing", async () => {
        const rule = await seedFullRule();
        expectFault(
          await api.put(`${collection}/${rule[kind.idKey]}`, {
            ...changes,
            cost: 1,
            group_id: UNKNOWN_ID,
          }),
          400,
          `No such group: None (UUID: ${UNKNOWN_ID})`,
        );
        expect((await api.get(`${collection}/${rule[kind.idKey]}`)).body).toEqual(rule);
      });
    });

    describe(`GET H/${kind.collection}/group`, () => {
      const param = kind.idKey;
      it("answers the group of a grouped rule", async () => {
        const group = await seed.group();
        const rule = await seed.rule(kind, {
          ...kind.identity(parents, "field", "70"),
          group_id: group.group_id,
        });
        const answer = await api.get(`${collection}/group`, {
          query: { [param]: rule[kind.idKey] },
        });
        expect(answer.status).toBe(200);
        expect(answer.body).toEqual(group);
      });

      it("answers 404 for a rule without a group", async () => {
        const rule = await seed.rule(kind, kind.identity(parents, "field", "71"));
        const id = rule[kind.idKey];
        expectFault(
          await api.get(`${collection}/group`, { query: { [param]: id } }),
          404,
          `${kind.noun} has no group (UUID: ${id})`,
        );
      });

      it("needs the id", async () => {
        expectFault(await api.get(`${collection}/group`), 400, `Missing argument: "${param}"`);
      });
    });
  },
);

describe("service mappings", () => {
  it.each([
    ["without value shows an empty value", {}, ""],
    ["with a null value shows null", { value: null }, null],
  ])("%s", async (_, body, expected) => {
    const { serviceId } = await seed.parents();
    const answer = await api.post(`${HASHMAP}/mappings`, {
      service_id: serviceId,
      cost: 1,
      ...body,
    });
    expect(answer.status).toBe(201);
    expect(answer.body.value).toBe(expected);
  });

  it("refuses a value on PUT, as on create", async () => {
    const { serviceId } = await seed.parents();
    const mapping = await seed.mapping({ service_id: serviceId });
    expectFault(
      await api.put(`${HASHMAP}/mappings/${mapping.mapping_id}`, { value: "m1.small", cost: 1 }),
      400,
      "You can't specify a value and a service_id.",
    );
  });

  it("refuses a PUT that removes a field mapping's value", async () => {
    const { fieldId } = await seed.parents();
    const mapping = await seed.mapping({ field_id: fieldId, value: "m1.small" });
    expectFault(
      await api.put(`${HASHMAP}/mappings/${mapping.mapping_id}`, { cost: 1 }),
      400,
      "You must specify a value for a field mapping.",
    );
    expect((await api.get(`${HASHMAP}/mappings/${mapping.mapping_id}`)).body).toEqual(mapping);
  });
});

describe("threshold levels", () => {
  it.each([
    ["10", "10.00000000"],
    [10, "10.00000000"],
    ["0.5", "0.50000000"],
    [-1, "-1.00000000"],
    ["12345678.12345678", "12345678.12345678"],
  ])("renders %j as %s", async (level, expected) => {
    const { fieldId } = await seed.parents();
    const answer = await api.post(`${HASHMAP}/thresholds`, { field_id: fieldId, level, cost: 1 });
    expect(answer.status).toBe(201);
    expect(answer.body.level).toBe(expected);
  });
});
