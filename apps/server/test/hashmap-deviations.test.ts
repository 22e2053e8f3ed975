import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient, HASHMAP, type Client } from "./support/client.js";
import {
  expectFault,
  RULE_KINDS,
  seeder,
  snapshotHashmap,
  type Seeder,
} from "./support/hashmap.js";
import { startServer, type TestServer } from "./support/server.js";

// The deliberate deviations from CloudKitty 17 (docs/compatibility.md): each one is a CloudKitty
// bug, and each test here fails against CloudKitty.

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

describe("1. no 500 for bad input", () => {
  it.each([
    [
      "a non-numeric cost",
      { cost: "abc" },
      "cost",
      "Not a decimal number (NaN and infinities are refused).",
    ],
    [
      "a cost that is an object",
      { cost: {} },
      "cost",
      "Wrong type, expected a decimal number or string.",
    ],
    [
      "a non-numeric level",
      { cost: 1, level: "ten" },
      "level",
      "Not a decimal number (NaN and infinities are refused).",
    ],
  ])("answers 400 for %s", async (_, attributes, attribute, why) => {
    const { fieldId } = await seed.parents();
    const before = await snapshotHashmap(api);
    const answer = await api.post(`${HASHMAP}/thresholds`, {
      field_id: fieldId,
      level: 1,
      ...attributes,
    });
    const value = (attributes as Record<string, unknown>)[attribute];
    const shown = typeof value === "string" ? value : JSON.stringify(value);
    expectFault(
      answer,
      400,
      `Invalid input for field/attribute ${attribute}. Value: '${shown}'. ${why}`,
    );
    expect(await snapshotHashmap(api)).toEqual(before);
  });

  it("answers 400 for a JSON array as body", async () => {
    expectFault(
      await api.post(`${HASHMAP}/services`, [{ name: "compute" }]),
      400,
      "Request body must be a JSON object",
    );
  });

  it.each(RULE_KINDS)("lists every one of the $collection without a filter", async (kind) => {
    const first = await seed.rule(kind, kind.identity(await seed.parents(), "service", "1"));
    const second = await seed.rule(kind, kind.identity(await seed.parents(), "field", "2"));
    const answer = await api.get(`${HASHMAP}/${kind.collection}`);
    expect(answer.status).toBe(200);
    expect(answer.body[kind.collection]).toEqual(expect.arrayContaining([first, second]));
  });
});

describe("2. exact decimals", () => {
  it.each([
    ["0.2", "0.2000000000000000000000000000"],
    [0.2, "0.2000000000000000000000000000"],
    ["1.12345678901234567890123456", "1.1234567890123456789012345600"],
    ["999999999999.9999999999999999999999999999", "999999999999.9999999999999999999999999999"],
    ["-0", "0.0000000000000000000000000000"],
    ["1e3", "1000.0000000000000000000000000000"],
  ])("keeps cost %j exactly as %s", async (cost, expected) => {
    const mapping = await seed.mapping({
      field_id: (await seed.parents()).fieldId,
      value: "a",
      cost,
    });
    expect(mapping.cost).toBe(expected);
    expect((await api.get(`${HASHMAP}/mappings/${mapping.mapping_id}`)).body.cost).toBe(expected);
  });

  it("keeps a JSON number with 26 decimals exactly, never through a binary double", async () => {
    const { fieldId } = await seed.parents();
    const body = `{"field_id": "${fieldId}", "value": "a", "cost": 1.12345678901234567890123456}`;
    const answer = await api.post(`${HASHMAP}/mappings`, body);
    expect(answer.status).toBe(201);
    expect(answer.body.cost).toBe("1.1234567890123456789012345600");
  });

  it.each([
    ["NaN", "NaN", "Not a decimal number (NaN and infinities are refused)."],
    ["Infinity", "Infinity", "Not a decimal number (NaN and infinities are refused)."],
    ["-Infinity", "-Infinity", "Not a decimal number (NaN and infinities are refused)."],
    ["1e400", "1e400", "Out of range: at most 12 integer digits."],
    ["1000000000000", "1000000000000", "Out of range: at most 12 integer digits."],
    [
      "0.00000000000000000000000000001",
      "0.00000000000000000000000000001",
      "More than 28 fractional digits cannot be stored exactly.",
    ],
  ])("refuses cost %s with 400", async (_, cost, why) => {
    const { fieldId } = await seed.parents();
    expectFault(
      await api.post(`${HASHMAP}/mappings`, { field_id: fieldId, value: "a", cost }),
      400,
      `Invalid input for field/attribute cost. Value: '${cost}'. ${why}`,
    );
  });

  it("refuses a JSON number out of range with 400", async () => {
    const { fieldId } = await seed.parents();
    const answer = await api.post(
      `${HASHMAP}/mappings`,
      `{"field_id": "${fieldId}", "value": "a", "cost": 1e400}`,
    );
    expectFault(
      answer,
      400,
      "Invalid input for field/attribute cost. Value: '1e400'. Out of range: at most 12 integer digits.",
    );
  });
});

describe("3. booleans in the query string", () => {
  it.each(["true", "True", "TRUE", "1", "yes"])("reads no_group=%s as true", async (word) => {
    const { fieldId } = await seed.parents();
    const group = await seed.group();
    const free = await seed.mapping({ field_id: fieldId, value: "free" });
    await seed.mapping({ field_id: fieldId, value: "grouped", group_id: group.group_id });
    const answer = await api.get(`${HASHMAP}/mappings`, {
      query: { field_id: fieldId, no_group: word },
    });
    expect(answer.body).toEqual({ mappings: [free] });
  });

  it.each(["false", "False", "0", "no", ""])("reads filter_tenant=%s as false", async (word) => {
    const { fieldId } = await seed.parents();
    const mine = await seed.mapping({ field_id: fieldId, value: "a", tenant_id: "tenant-a" });
    const everyone = await seed.mapping({ field_id: fieldId, value: "b" });
    const answer = await api.get(`${HASHMAP}/mappings`, {
      query: { field_id: fieldId, filter_tenant: word },
    });
    expect(answer.body).toEqual({ mappings: [mine, everyone] });
  });

  it.each(["no_group", "filter_tenant"])("refuses %s=maybe with 400", async (name) => {
    expectFault(
      await api.get(`${HASHMAP}/thresholds`, { query: { [name]: "maybe" } }),
      400,
      `Invalid input for field/attribute ${name}. Value: 'maybe'. Expected true or false.`,
    );
  });

  it("does not delete a group's rules with recursive=false", async () => {
    const group = await seed.group();
    const mapping = await seed.mapping({
      field_id: (await seed.parents()).fieldId,
      value: "a",
      group_id: group.group_id,
    });
    expect(
      (await api.delete(`${HASHMAP}/groups/${group.group_id}`, { query: { recursive: "false" } }))
        .status,
    ).toBe(204);
    expect((await api.get(`${HASHMAP}/mappings/${mapping.mapping_id}`)).body).toEqual({
      ...mapping,
      group_id: null,
    });
  });
});

describe("4. PUT answers 200 with the updated object", () => {
  it.each(RULE_KINDS)("for $collection", async (kind) => {
    const rule = await seed.rule(kind, kind.identity(await seed.parents(), "field", "1"));
    const answer = await api.put(`${HASHMAP}/${kind.collection}/${rule[kind.idKey]}`, {
      ...kind.key("1"),
      cost: "2",
    });
    expect(answer.status).toBe(200);
    expect(answer.headers.get("location")).toBeNull();
    expect(answer.body).toEqual({
      ...rule,
      cost: "2.0000000000000000000000000000",
      updated_by: "noauth",
    });
  });
});

describe("5. identical rules are refused, and only those", () => {
  const scopes = [
    ["no tenant, no group", () => ({})],
    ["a tenant, no group", () => ({ tenant_id: "tenant-a" })],
    ["no tenant, a group", (groupId: string) => ({ group_id: groupId })],
    ["a tenant and a group", (groupId: string) => ({ tenant_id: "tenant-a", group_id: groupId })],
  ] as const;
  const parentKinds = ["service", "field"] as const;

  describe.each(RULE_KINDS.map((kind) => [kind.collection, kind] as const))(
    "%s",
    (_collection, kind) => {
      it.each(
        parentKinds.flatMap((on) =>
          scopes.map(([scope, attributes]) => [on, scope, attributes] as const),
        ),
      )(
        "refuses a second identical %s rule with %s: 409, nothing created",
        async (on, _, attributes) => {
          const group = await seed.group();
          const body = {
            ...kind.identity(await seed.parents(), on, "10"),
            ...attributes(group.group_id),
          };
          await seed.rule(kind, body);
          const before = await snapshotHashmap(api);
          const answer = await api.post(`${HASHMAP}/${kind.collection}`, { ...body, cost: "5" });
          expect(answer.status, answer.text).toBe(409);
          expect(await snapshotHashmap(api)).toEqual(before);
        },
      );

      it("allows identical rules in different groups, and beside the same rule without a group", async () => {
        const parents = await seed.parents();
        const body = kind.identity(parents, "field", "10");
        await seed.rule(kind, body);
        await seed.rule(kind, { ...body, group_id: (await seed.group()).group_id });
        await seed.rule(kind, { ...body, group_id: (await seed.group()).group_id });
      });

      it("allows a tenant's rule whose key exists for that tenant in another group", async () => {
        const parents = await seed.parents();
        const body = { ...kind.identity(parents, "field", "10"), tenant_id: "tenant-a" };
        await seed.rule(kind, { ...body, group_id: (await seed.group()).group_id });
        await seed.rule(kind, { ...body, group_id: (await seed.group()).group_id });
        await seed.rule(kind, body);
      });

      it("allows the same key for another tenant, and for no tenant", async () => {
        const parents = await seed.parents();
        const body = kind.identity(parents, "field", "10");
        await seed.rule(kind, { ...body, tenant_id: "tenant-a" });
        await seed.rule(kind, { ...body, tenant_id: "tenant-b" });
        await seed.rule(kind, body);
      });

      it("refuses a PUT that makes a rule identical to another one: 409, nothing changed", async () => {
        const parents = await seed.parents();
        await seed.rule(kind, kind.identity(parents, "field", "10"));
        const other = await seed.rule(kind, kind.identity(parents, "field", "20"));
        const answer = await api.put(`${HASHMAP}/${kind.collection}/${other[kind.idKey]}`, {
          ...kind.key("10"),
          cost: 1,
        });
        expect(answer.status, answer.text).toBe(409);
        expect((await api.get(`${HASHMAP}/${kind.collection}/${other[kind.idKey]}`)).body).toEqual(
          other,
        );
      });

      it("allows a PUT that keeps the rule's own identity", async () => {
        const rule = await seed.rule(kind, {
          ...kind.identity(await seed.parents(), "field", "10"),
          tenant_id: "tenant-a",
        });
        const answer = await api.put(`${HASHMAP}/${kind.collection}/${rule[kind.idKey]}`, {
          ...kind.key("10"),
          cost: 7,
          tenant_id: "tenant-a",
        });
        expect(answer.status).toBe(200);
      });
    },
  );

  it.each([
    ["10", "10.0"],
    ["10", 10],
    ["1.5", "1.50000000"],
    ["100", "1e2"],
  ])("refuses levels %j and %j as the same threshold", async (level, same) => {
    const { fieldId } = await seed.parents();
    await seed.threshold({ field_id: fieldId, level });
    const answer = await api.post(`${HASHMAP}/thresholds`, {
      field_id: fieldId,
      level: same,
      cost: 1,
    });
    expect(answer.status).toBe(409);
  });

  it("refuses a service mapping with a null value beside one without value: both have none", async () => {
    const { serviceId } = await seed.parents();
    const existing = await seed.mapping({ service_id: serviceId });
    const answer = await api.post(`${HASHMAP}/mappings`, {
      service_id: serviceId,
      value: null,
      cost: 2,
    });
    expect(answer.status).toBe(409);
    expect(answer.body.faultstring).toContain(`(UUID: ${existing.mapping_id})`);
  });

  it('refuses a tenant "" beside the same rule without tenant, naming the existing rule', async () => {
    const { fieldId } = await seed.parents();
    const existing = await seed.mapping({ field_id: fieldId, value: "a" });
    const answer = await api.post(`${HASHMAP}/mappings`, {
      field_id: fieldId,
      value: "a",
      tenant_id: "",
      cost: 1,
    });
    expect(answer.status).toBe(409);
    expect(answer.body.faultstring).toContain(`(UUID: ${existing.mapping_id})`);
  });
});

describe("6. JSON only", () => {
  it("answers JSON even when XML is asked for", async () => {
    const answer = await api.get(`${HASHMAP}/types`, { headers: { Accept: "application/xml" } });
    expect(answer.headers.get("content-type")).toBe("application/json");
    expect(answer.body).toEqual(["flat", "rate"]);
  });
});

describe("7. conflict messages name the rule, its key, parent, tenant and group", () => {
  it("for a field mapping", async () => {
    const { fieldId } = await seed.parents();
    const existing = await seed.mapping({ field_id: fieldId, value: "m1.small" });
    expectFault(
      await api.post(`${HASHMAP}/mappings`, { field_id: fieldId, value: "m1.small", cost: 1 }),
      409,
      `Mapping for value 'm1.small' already exists for field ${fieldId}, no tenant, no group (UUID: ${existing.mapping_id})`,
    );
  });

  it("for a service mapping of a tenant in a group", async () => {
    const { serviceId } = await seed.parents();
    const group = await seed.group();
    const body = { service_id: serviceId, tenant_id: "tenant-a", group_id: group.group_id };
    const existing = await seed.mapping(body);
    expectFault(
      await api.post(`${HASHMAP}/mappings`, { ...body, cost: 2 }),
      409,
      `Service mapping already exists for service ${serviceId}, tenant 'tenant-a', group ${group.group_id} ` +
        `(UUID: ${existing.mapping_id})`,
    );
  });

  it("for a threshold of a tenant", async () => {
    const { serviceId } = await seed.parents();
    const existing = await seed.threshold({
      service_id: serviceId,
      level: "10",
      tenant_id: "tenant-a",
    });
    expectFault(
      await api.post(`${HASHMAP}/thresholds`, {
        service_id: serviceId,
        level: "10.0",
        tenant_id: "tenant-a",
        cost: 1,
      }),
      409,
      `Threshold for level 10.00000000 already exists for service ${serviceId}, tenant 'tenant-a', no group ` +
        `(UUID: ${existing.threshold_id})`,
    );
  });

  it("for an update into a duplicate", async () => {
    const { fieldId } = await seed.parents();
    const existing = await seed.mapping({ field_id: fieldId, value: "a", tenant_id: "tenant-a" });
    const moved = await seed.mapping({ field_id: fieldId, value: "b", tenant_id: "tenant-a" });
    expectFault(
      await api.put(`${HASHMAP}/mappings/${moved.mapping_id}`, {
        value: "a",
        tenant_id: "tenant-a",
        cost: 1,
      }),
      409,
      `Mapping for value 'a' already exists for field ${fieldId}, tenant 'tenant-a', no group (UUID: ${existing.mapping_id})`,
    );
  });
});
