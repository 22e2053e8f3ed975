import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient, HASHMAP, type Client } from "./support/client.js";
import {
  expectFault,
  seeder,
  snapshotHashmap,
  uniqueName,
  type Seeder,
} from "./support/hashmap.js";
import { startServer, type TestServer } from "./support/server.js";

// How requests reach the hashmap API: paths, methods, headers, arguments.

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

describe("paths", () => {
  it("ignores trailing slashes, on collections and items", async () => {
    const service = await seed.service();
    expect((await api.get(`${HASHMAP}/services/`)).body.services).toContainEqual(service);
    expect((await api.get(`${HASHMAP}/services//`)).status).toBe(200);
    expect((await api.get(`${HASHMAP}/services/${service.service_id}/`)).body).toEqual(service);
    expect((await api.get(`${HASHMAP}/types/`)).body).toEqual(["flat", "rate"]);
  });

  it("answers Location without a doubled slash when the create had a trailing one", async () => {
    const answer = await api.post(`${HASHMAP}/groups/`, { name: uniqueName("group") });
    expect(answer.headers.get("location")).toBe(
      `${server.baseUrl}${HASHMAP}/groups/${answer.body.group_id}`,
    );
  });

  it("answers 404 in fault shape for a path that does not exist", async () => {
    expectFault(await api.get(`${HASHMAP}/nothing`), 404, `Resource not found: ${HASHMAP}/nothing`);
  });
});

describe("methods", () => {
  it.each([
    ["PATCH", "services", "GET, POST"],
    ["PUT", "services", "GET, POST"],
    ["DELETE", "types", "GET"],
    ["POST", "types", "GET"],
    ["POST", "services/{id}", "GET, DELETE"],
    ["PUT", "groups/{id}", "GET, DELETE"],
    ["POST", "mappings/{id}", "GET, PUT, DELETE"],
  ])("answers %s %s with 405 and Allow: %s", async (method, path, allow) => {
    const service = await seed.service();
    const answer = await api.request(
      method,
      `${HASHMAP}/${path.replace("{id}", service.service_id)}`,
    );
    expectFault(answer, 405, `The method ${method} is not allowed for this resource`);
    expect(answer.headers.get("allow")).toBe(allow);
  });
});

describe("headers", () => {
  it("sends Content-Type: application/json on GET", async () => {
    const answer = await api.get(`${HASHMAP}/services`);
    expect(answer.headers.get("content-type")).toBe("application/json");
  });

  it("accepts a JSON body whose Content-Type has a charset", async () => {
    const answer = await api.post(
      `${HASHMAP}/services`,
      { name: uniqueName("charset") },
      { headers: { "Content-Type": "application/json; charset=utf-8" } },
    );
    expect(answer.status).toBe(201);
  });

  it("accepts a GET that sends Content-Type: application/json and no body (the CLI does)", async () => {
    const answer = await api.get(`${HASHMAP}/groups`, {
      headers: { "Content-Type": "application/json" },
    });
    expect(answer.status).toBe(200);
  });

  it("refuses a body that is not JSON with 415, and creates nothing", async () => {
    const before = await snapshotHashmap(api);
    const answer = await api.post(`${HASHMAP}/services`, "name=compute", {
      headers: { "Content-Type": "text/plain" },
    });
    expectFault(answer, 415, "Unknown mimetype: text/plain");
    expect(await snapshotHashmap(api)).toEqual(before);
  });
});

describe("query arguments", () => {
  // CloudKitty refuses what it does not know, so a misspelt filter is not silently ignored.
  it.each([
    ["services", {}],
    ["groups", {}],
    ["types", {}],
    ["fields", { service_id: "x" }],
    ["mappings", {}],
    ["thresholds", {}],
    ["groups/mappings", { group_id: "x" }],
  ])("GET H/%s refuses an unknown argument with 400", async (path, query) => {
    expectFault(
      await api.get(`${HASHMAP}/${path}`, { query: { ...query, name: "compute" } }),
      400,
      'Unknown argument: "name"',
    );
  });

  it.each(["services", "groups"])(
    "GET H/%s/{id} refuses an unknown argument with 400",
    async (collection) => {
      const object = collection === "services" ? await seed.service() : await seed.group();
      const id = object.service_id ?? object.group_id;
      expectFault(
        await api.get(`${HASHMAP}/${collection}/${id}`, { query: { foo: "1" } }),
        400,
        'Unknown argument: "foo"',
      );
    },
  );

  it("refuses the same argument twice", async () => {
    const answer = await api.get(`${HASHMAP}/mappings?service_id=a&service_id=b`);
    expectFault(answer, 400, 'Parameter "service_id" is given more than once');
  });
});
