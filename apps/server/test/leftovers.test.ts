import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient, HASHMAP, type Client } from "./support/client.js";
import { expectFault, seeder, UNKNOWN_ID } from "./support/hashmap.js";
import { startServer, type TestServer } from "./support/server.js";

// CloudKitty routes that sit beside the documented ones: the controllers that serve no method of
// their own, and a service's fields under the service.

let server: TestServer;
let api: Client;
beforeAll(async () => {
  server = await startServer();
  api = createClient(server.baseUrl);
});
afterAll(async () => {
  await server.stop();
});

describe("controllers without methods", () => {
  // CloudKitty 17 answers each with a 405 and an empty Allow (its gabbi suite checks
  // pyscripts/script); Ratecard sends its JSON fault instead of CloudKitty's HTML page.
  const paths = [
    "/v1/rating/module_config/hashmap",
    "/v1/rating/module_config/hashmap/",
    "/v1/rating/module_config/pyscripts",
    "/v1/rating/module_config/pyscripts/",
    "/v1/rating/module_config/pyscripts/script",
    "/v1/rating/module_config/pyscripts/script/",
    "/v1/rating/module_config",
    "/v1/rating",
    "/v1/info/",
  ];
  it.each(paths)("%s answers 405 to every method", async (path) => {
    for (const method of ["GET", "POST", "PUT", "DELETE"]) {
      const answer = await api.request(method, path, method === "GET" ? {} : { body: {} });
      expectFault(answer, 405, `The method ${method} is not allowed for this resource`);
      expect(answer.headers.get("allow")).toBe("");
    }
  });

  it("leaves other unknown paths a 404", async () => {
    expectFault(
      await api.get("/v1/rating/module_config/hashmap/nothing"),
      404,
      "Resource not found: /v1/rating/module_config/hashmap/nothing",
    );
  });
});

describe("GET .../hashmap/services/<id>/fields", () => {
  it("answers the service's fields, as fields?service_id=<id>", async () => {
    const seed = seeder(api);
    const service = await seed.service();
    const other = await seed.service();
    await seed.field(service.service_id);
    await seed.field(service.service_id);
    await seed.field(other.service_id);
    const byQuery = await api.get(`${HASHMAP}/fields/?service_id=${service.service_id}`);
    expect(byQuery.body.fields).toHaveLength(2);
    for (const path of [
      `${HASHMAP}/services/${service.service_id}/fields`,
      `${HASHMAP}/services/${service.service_id}/fields/`,
      `${HASHMAP}/services/${service.service_id}/fields?service_id=${service.service_id}`,
    ]) {
      const answer = await api.get(path);
      expect({ path, status: answer.status, body: answer.body }).toEqual({
        path,
        status: 200,
        body: byQuery.body,
      });
    }
  });

  it("answers no fields for an unknown service, as CloudKitty", async () => {
    const answer = await api.get(`${HASHMAP}/services/${UNKNOWN_ID}/fields`);
    expect({ status: answer.status, body: answer.body }).toEqual({
      status: 200,
      body: { fields: [] },
    });
  });

  it("refuses another service id in the query string", async () => {
    const service = await seeder(api).service();
    expectFault(
      await api.get(`${HASHMAP}/services/${service.service_id}/fields?service_id=${UNKNOWN_ID}`),
      400,
      `Parameter "service_id" is given twice with different values: '${service.service_id}' ` +
        `in the path, '${UNKNOWN_ID}' in the query string`,
    );
  });

  it("is read-only", async () => {
    const service = await seeder(api).service();
    const answer = await api.post(`${HASHMAP}/services/${service.service_id}/fields`, {
      name: "x",
    });
    expectFault(answer, 405, "The method POST is not allowed for this resource");
    expect(answer.headers.get("allow")).toBe("GET");
  });
});
