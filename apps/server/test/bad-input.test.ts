import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient, HASHMAP, PYSCRIPTS, type Client } from "./support/client.js";
import { expectFault, seeder, snapshotHashmap, UNKNOWN_ID } from "./support/hashmap.js";
import { startServer, type TestServer } from "./support/server.js";

// Bad input gets a 4xx in CloudKitty's fault shape with a message that says what is wrong, and
// leaves every object as it was.

let server: TestServer;
let api: Client;
/** Objects the bad requests aim at. */
let ids: { service: string; field: string; group: string; mapping: string; threshold: string };
beforeAll(async () => {
  server = await startServer();
  api = createClient(server.baseUrl);
  const seed = seeder(api);
  const { serviceId, fieldId } = await seed.parents();
  const group = await seed.group();
  const mapping = await seed.mapping({
    field_id: fieldId,
    value: "m1.small",
    group_id: group.group_id,
  });
  const threshold = await seed.threshold({
    service_id: serviceId,
    level: "10",
    tenant_id: "tenant-a",
  });
  ids = {
    service: serviceId,
    field: fieldId,
    group: group.group_id,
    mapping: mapping.mapping_id,
    threshold: threshold.threshold_id,
  };
});
afterAll(async () => {
  await server.stop();
});

type Ids = typeof ids;
type BadRequest = [
  description: string,
  method: string,
  path: (ids: Ids) => string,
  body: (ids: Ids) => unknown,
  status: number,
  faultstring: string | ((ids: Ids) => string),
];

const invalid = (attribute: string, value: string, why: string) =>
  `Invalid input for field/attribute ${attribute}. Value: '${value}'. ${why}`;
const NOT_A_DECIMAL = "Not a decimal number (NaN and infinities are refused).";
const NOT_A_STRING = "Wrong type, expected a string.";
const NOT_A_COST = "Wrong type, expected a decimal number or string.";

const mappingBody = (i: Ids, change: Record<string, unknown>) => ({
  field_id: i.field,
  value: "new",
  cost: 1,
  ...change,
});
const thresholdBody = (i: Ids, change: Record<string, unknown>) => ({
  field_id: i.field,
  level: 1,
  cost: 1,
  ...change,
});

async function expectRefusedWithoutChange(
  method: string,
  path: string,
  body: unknown,
  status: number,
  faultstring: string,
): Promise<void> {
  const before = await snapshotHashmap(api);
  const answer = await api.request(method, path, body === undefined ? {} : { body });
  expectFault(answer, status, faultstring);
  expect(await snapshotHashmap(api)).toEqual(before);
}

describe("bodies that are not a JSON object", () => {
  const paths = [`${HASHMAP}/services`, `${HASHMAP}/mappings`, `${HASHMAP}/thresholds`];
  it.each([
    ["malformed JSON", '{"name": ', "Request is not in valid JSON format"],
    ["JSON with a trailing comma", '{"name": "compute",}', "Request is not in valid JSON format"],
    [
      "a key given twice with the same value",
      '{"name": "compute", "name": "compute"}',
      "Request is not in valid JSON format",
    ],
    [
      "a nested key given twice, behind strings holding colons and escaped quotes",
      '{"name": "a:\\":b", "desc": {"k": "1", "k": "1"}}',
      "Request is not in valid JSON format",
    ],
    [
      "a key given twice, once written with an escape",
      '{"name": "compute", "n\\u0061me": "compute"}',
      "Request is not in valid JSON format",
    ],
    [
      "a number that is not JSON's under a decimal key",
      '{"name": "compute", "cost": 01}',
      "Request is not in valid JSON format",
    ],
    [
      "arrays nested 10,000 deep",
      `{"name": "compute", "x": ${"[".repeat(10_000)}${"]".repeat(10_000)}}`,
      "Request body nests objects and arrays deeper than 32 levels",
    ],
    ["a JSON array", '[{"name": "compute"}]', "Request body must be a JSON object"],
    ["a JSON string", '"compute"', "Request body must be a JSON object"],
    ["a JSON number", "42", "Request body must be a JSON object"],
    ["JSON null", "null", "Request body must be a JSON object"],
    ["JSON true", "true", "Request body must be a JSON object"],
  ])("refuses %s with 400", async (_, raw, message) => {
    for (const path of paths) await expectRefusedWithoutChange("POST", path, raw, 400, message);
  });

  it("accepts strings holding colons, escaped quotes and backslashes (no member miscounted)", async () => {
    const name = 'a: "b":\\ {c: d}';
    const answer = await api.request("POST", `${HASHMAP}/groups`, {
      body: JSON.stringify({ name }),
    });
    expect(answer.status).toBe(201);
    expect((answer.body as { name: string }).name).toBe(name);
    await api.request(
      "DELETE",
      `${HASHMAP}/groups/${(answer.body as { group_id: string }).group_id}`,
    );
  });

  it("keeps a cost given as a JSON number behind an escaped key as its exact text", async () => {
    const answer = await api.post(
      `${HASHMAP}/mappings`,
      `{"field_id": "${ids.field}", "value": "escaped", "c\\u006fst": 0.1000000000000000000000000001}`,
    );
    expect(answer.status).toBe(201);
    expect((answer.body as { cost: string }).cost).toBe("0.1000000000000000000000000001");
    await api.request(
      "DELETE",
      `${HASHMAP}/mappings/${(answer.body as { mapping_id: string }).mapping_id}`,
    );
  });

  it("refuses a PUT and a DELETE whose body is not an object", async () => {
    await expectRefusedWithoutChange(
      "PUT",
      `${HASHMAP}/mappings/${ids.mapping}`,
      "[1]",
      400,
      "Request body must be a JSON object",
    );
    await expectRefusedWithoutChange(
      "DELETE",
      `${HASHMAP}/services/`,
      "{",
      400,
      "Request is not in valid JSON format",
    );
  });

  it("reads an empty body as an empty object: the mandatory attributes are missing", async () => {
    await expectRefusedWithoutChange(
      "POST",
      `${HASHMAP}/groups`,
      undefined,
      400,
      invalid("name", "None", "Mandatory field missing."),
    );
  });
});

describe("attributes of the wrong type or value", () => {
  const cases: BadRequest[] = [
    [
      "service name as a number",
      "POST",
      () => `${HASHMAP}/services`,
      () => ({ name: 42 }),
      400,
      invalid("name", "42", NOT_A_STRING),
    ],
    [
      "service name empty",
      "POST",
      () => `${HASHMAP}/services`,
      () => ({ name: "" }),
      400,
      invalid("name", "", "Must not be empty."),
    ],
    [
      "group name as null",
      "POST",
      () => `${HASHMAP}/groups`,
      () => ({ name: null }),
      400,
      invalid("name", "None", NOT_A_STRING),
    ],
    [
      "field name as an object",
      "POST",
      () => `${HASHMAP}/fields`,
      (i) => ({ name: { a: 1 }, service_id: i.service }),
      400,
      invalid("name", '{"a":1}', NOT_A_STRING),
    ],
    [
      "field service_id not a UUID",
      "POST",
      () => `${HASHMAP}/fields`,
      () => ({ name: "flavor", service_id: "compute" }),
      400,
      invalid("service_id", "compute", "Invalid UUID, got 'compute'"),
    ],
    [
      "field service_id as a number",
      "POST",
      () => `${HASHMAP}/fields`,
      () => ({ name: "flavor", service_id: 7 }),
      400,
      invalid("service_id", "7", "Wrong type, expected a UUID string."),
    ],
    [
      "cost as an object",
      "POST",
      () => `${HASHMAP}/mappings`,
      (i) => mappingBody(i, { cost: { v: 1 } }),
      400,
      invalid("cost", '{"v":1}', NOT_A_COST),
    ],
    [
      "cost as a boolean",
      "POST",
      () => `${HASHMAP}/mappings`,
      (i) => mappingBody(i, { cost: true }),
      400,
      invalid("cost", "True", NOT_A_COST),
    ],
    [
      "cost as null",
      "POST",
      () => `${HASHMAP}/mappings`,
      (i) => mappingBody(i, { cost: null }),
      400,
      invalid("cost", "None", NOT_A_COST),
    ],
    [
      "cost as a list",
      "POST",
      () => `${HASHMAP}/mappings`,
      (i) => mappingBody(i, { cost: [1] }),
      400,
      invalid("cost", "[1]", NOT_A_COST),
    ],
    [
      "cost NaN",
      "POST",
      () => `${HASHMAP}/mappings`,
      (i) => mappingBody(i, { cost: "NaN" }),
      400,
      invalid("cost", "NaN", NOT_A_DECIMAL),
    ],
    [
      "cost Infinity",
      "POST",
      () => `${HASHMAP}/mappings`,
      (i) => mappingBody(i, { cost: "Infinity" }),
      400,
      invalid("cost", "Infinity", NOT_A_DECIMAL),
    ],
    [
      "cost not a number",
      "POST",
      () => `${HASHMAP}/mappings`,
      (i) => mappingBody(i, { cost: "1,5" }),
      400,
      invalid("cost", "1,5", NOT_A_DECIMAL),
    ],
    [
      "cost empty",
      "POST",
      () => `${HASHMAP}/mappings`,
      (i) => mappingBody(i, { cost: "" }),
      400,
      invalid("cost", "", NOT_A_DECIMAL),
    ],
    [
      "value as a number",
      "POST",
      () => `${HASHMAP}/mappings`,
      (i) => mappingBody(i, { value: 5 }),
      400,
      invalid("value", "5", NOT_A_STRING),
    ],
    [
      "tenant_id as a number",
      "POST",
      () => `${HASHMAP}/mappings`,
      (i) => mappingBody(i, { tenant_id: 5 }),
      400,
      invalid("tenant_id", "5", NOT_A_STRING),
    ],
    [
      "group_id not a UUID",
      "POST",
      () => `${HASHMAP}/mappings`,
      (i) => mappingBody(i, { group_id: "gold" }),
      400,
      invalid("group_id", "gold", "Invalid UUID, got 'gold'"),
    ],
    [
      "field_id not a UUID",
      "POST",
      () => `${HASHMAP}/mappings`,
      (i) => mappingBody(i, { field_id: `${i.field}x` }),
      400,
      invalid("field_id", "{field}x", "Invalid UUID, got '{field}x'"),
    ],
    [
      "type as a number",
      "POST",
      () => `${HASHMAP}/mappings`,
      (i) => mappingBody(i, { type: 1 }),
      400,
      invalid("type", "1", "Value should be one of: flat, rate"),
    ],
    [
      "type FLAT",
      "POST",
      () => `${HASHMAP}/thresholds`,
      (i) => thresholdBody(i, { type: "FLAT" }),
      400,
      invalid("type", "FLAT", "Value should be one of: flat, rate"),
    ],
    [
      "level as a boolean",
      "POST",
      () => `${HASHMAP}/thresholds`,
      (i) => thresholdBody(i, { level: false }),
      400,
      invalid("level", "False", NOT_A_COST),
    ],
    [
      "level not a number",
      "POST",
      () => `${HASHMAP}/thresholds`,
      (i) => thresholdBody(i, { level: "high" }),
      400,
      invalid("level", "high", NOT_A_DECIMAL),
    ],
    [
      "cost on PUT not a number",
      "PUT",
      (i) => `${HASHMAP}/thresholds/${i.threshold}`,
      () => ({ level: 10, cost: "free" }),
      400,
      invalid("cost", "free", NOT_A_DECIMAL),
    ],
    [
      "tenant_id on PUT as a list",
      "PUT",
      (i) => `${HASHMAP}/mappings/${i.mapping}`,
      () => ({ value: "m1.small", cost: 1, tenant_id: ["a"] }),
      400,
      invalid("tenant_id", '["a"]', NOT_A_STRING),
    ],
    [
      "the id in the CLI's PUT body not a UUID",
      "PUT",
      () => `${HASHMAP}/mappings/`,
      () => ({ mapping_id: 12, value: "m1.small", cost: 1 }),
      400,
      invalid("mapping_id", "12", "Invalid UUID, got '12'"),
    ],
  ];
  it.each(cases)("refuses %s", async (_, method, path, body, status, faultstring) => {
    const message =
      typeof faultstring === "string"
        ? faultstring.replaceAll("{field}", ids.field)
        : faultstring(ids);
    await expectRefusedWithoutChange(method, path(ids), body(ids), status, message);
  });
});

describe("unknown attributes", () => {
  it.each([
    ["services", "POST", () => ({ name: "x", foo: 1 }), "service_data"],
    ["groups", "POST", () => ({ name: "x", foo: 1 }), "group_data"],
    ["fields", "POST", (i: Ids) => ({ name: "x", service_id: i.service, foo: 1 }), "field_data"],
    ["mappings", "POST", (i: Ids) => mappingBody(i, { foo: 1 }), "mapping_data"],
    ["thresholds", "POST", (i: Ids) => thresholdBody(i, { foo: 1 }), "threshold_data"],
    ["mappings/{mapping}", "PUT", () => ({ value: "x", cost: 1, foo: 1 }), "mapping"],
    ["thresholds/{threshold}", "PUT", () => ({ level: 1, cost: 1, foo: 1 }), "threshold"],
  ])("refuses %s on %s", async (path, method, body, bodyName) => {
    const target = path.replace("{mapping}", ids.mapping).replace("{threshold}", ids.threshold);
    await expectRefusedWithoutChange(
      method,
      `${HASHMAP}/${target}`,
      body(ids),
      400,
      `Unknown attribute for argument ${bodyName}: foo`,
    );
  });

  it("refuses a checksum set by the client", async () => {
    const answer = await api.post(`${PYSCRIPTS}/scripts`, {
      name: "s",
      data: "x",
      checksum: "abc",
    });
    expect(answer.status).toBe(400);
    expect(answer.body.faultstring).toContain("checksum");
  });
});

describe("unknown ids", () => {
  const cases: BadRequest[] = [
    [
      "GET a service",
      "GET",
      () => `${HASHMAP}/services/${UNKNOWN_ID}`,
      () => undefined,
      404,
      `No such service: None (UUID: ${UNKNOWN_ID})`,
    ],
    [
      "DELETE a field",
      "DELETE",
      () => `${HASHMAP}/fields/${UNKNOWN_ID}`,
      () => undefined,
      404,
      `No such field: ${UNKNOWN_ID}`,
    ],
    [
      "DELETE a group",
      "DELETE",
      () => `${HASHMAP}/groups/`,
      () => ({ group_id: UNKNOWN_ID, recursive: true }),
      404,
      `No such group: None (UUID: ${UNKNOWN_ID})`,
    ],
    [
      "PUT a mapping",
      "PUT",
      () => `${HASHMAP}/mappings/${UNKNOWN_ID}`,
      () => ({ value: "a", cost: 1 }),
      404,
      `No such mapping: ${UNKNOWN_ID}`,
    ],
    [
      "PUT a threshold",
      "PUT",
      () => `${HASHMAP}/thresholds/`,
      () => ({ threshold_id: UNKNOWN_ID, level: 1, cost: 1 }),
      404,
      `No such threshold: ${UNKNOWN_ID}`,
    ],
    [
      "a mapping's group",
      "GET",
      () => `${HASHMAP}/mappings/group?mapping_id=${UNKNOWN_ID}`,
      () => undefined,
      404,
      `No such mapping: ${UNKNOWN_ID}`,
    ],
    [
      "a field of an unknown service",
      "POST",
      () => `${HASHMAP}/fields`,
      () => ({ name: "flavor", service_id: UNKNOWN_ID }),
      400,
      `No such service: None (UUID: ${UNKNOWN_ID})`,
    ],
    [
      "a mapping of an unknown field",
      "POST",
      () => `${HASHMAP}/mappings`,
      (i) => mappingBody(i, { field_id: UNKNOWN_ID }),
      400,
      `No such field: ${UNKNOWN_ID}`,
    ],
    [
      "a threshold of an unknown service",
      "POST",
      () => `${HASHMAP}/thresholds`,
      () => ({ service_id: UNKNOWN_ID, level: 1, cost: 1 }),
      400,
      `No such service: None (UUID: ${UNKNOWN_ID})`,
    ],
    [
      "a mapping moved to an unknown group",
      "PUT",
      (i) => `${HASHMAP}/mappings/${i.mapping}`,
      () => ({ value: "m1.small", cost: 1, group_id: UNKNOWN_ID }),
      400,
      `No such group: None (UUID: ${UNKNOWN_ID})`,
    ],
  ];
  it.each(cases)("answers %s", async (_, method, path, body, status, faultstring) => {
    const message = typeof faultstring === "string" ? faultstring : faultstring(ids);
    await expectRefusedWithoutChange(method, path(ids), body(ids), status, message);
  });
});

describe("body size", () => {
  const SMALL_LIMIT = 2048;
  let small: TestServer;
  beforeAll(async () => {
    small = await startServer({ env: { BODY_LIMIT_BYTES: String(SMALL_LIMIT) } });
  });
  afterAll(async () => {
    await small.stop();
  });

  it("refuses a body over BODY_LIMIT_BYTES with 413 in fault shape, and creates nothing", async () => {
    const client = createClient(small.baseUrl);
    const answer = await client.post(`${PYSCRIPTS}/scripts`, {
      name: "big",
      data: "#".repeat(SMALL_LIMIT),
    });
    expectFault(answer, 413, `Request body is larger than the limit of ${SMALL_LIMIT} bytes`);
    expect((await client.get(`${PYSCRIPTS}/scripts`)).body).toEqual({ scripts: [] });
    const fits = await client.post(`${PYSCRIPTS}/scripts`, {
      name: "fits",
      data: "#".repeat(SMALL_LIMIT - 100),
    });
    expect(fits.status).toBe(201);
  });

  it("accepts a script over 1 MiB with the default limit", async () => {
    const data = `# ${"x".repeat(1024 * 1024 + 10)}\n`;
    const answer = await api.post(`${PYSCRIPTS}/scripts`, { name: "large", data });
    expect(answer.status).toBe(201);
    expect((await api.get(`${PYSCRIPTS}/scripts/${answer.body.script_id}`)).body.data).toBe(data);
  });
});
