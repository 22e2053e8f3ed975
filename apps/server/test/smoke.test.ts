import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient, HASHMAP, type Client } from "./support/client.js";
import { startServer, type TestServer } from "./support/server.js";

describe("server process", () => {
  let server: TestServer;
  let api: Client;
  beforeAll(async () => {
    server = await startServer();
    api = createClient(server.baseUrl);
  });
  afterAll(async () => {
    await server.stop();
  });

  it("creates a service with 201 and an absolute Location, and lists it", async () => {
    const created = await api.post(`${HASHMAP}/services/`, { name: "compute" });
    expect(created.status).toBe(201);
    expect(created.headers.get("location")).toBe(
      `${server.baseUrl}${HASHMAP}/services/${created.body.service_id}`,
    );
    const listed = await api.get(`${HASHMAP}/services`);
    expect(listed.body).toEqual({
      services: [{ service_id: created.body.service_id, name: "compute" }],
    });
  });

  it("sends a request id on every response", async () => {
    const answer = await api.get(`${HASHMAP}/types`);
    expect(answer.body).toEqual(["flat", "rate"]);
    expect(answer.headers.get("x-openstack-request-id")).toMatch(/^req-[0-9a-f-]{36}$/);
  });
});
