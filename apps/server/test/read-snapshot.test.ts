import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient, HASHMAP, type Client } from "./support/client.js";
import { startServer, type TestServer } from "./support/server.js";

// The read snapshot keeps GET answers per database version. Two server processes on one SQLite
// file: what one writes, the other answers at once, from REST, RPC and the quote.

let first: TestServer;
let second: TestServer;
let a: Client;
let b: Client;

beforeAll(async () => {
  first = await startServer();
  second = await startServer({ databasePath: first.databasePath });
  a = createClient(first.baseUrl);
  b = createClient(second.baseUrl);
});
afterAll(async () => {
  await Promise.all([first?.stop(), second?.stop()]);
});

describe("the read snapshot", () => {
  it("answers a repeated GET with the same bytes and ETag, and 304 when asked", async () => {
    const one = await b.get(`${HASHMAP}/services`);
    const two = await b.get(`${HASHMAP}/services`);
    expect(two.text).toBe(one.text);
    const etag = two.headers.get("etag");
    expect(etag).toMatch(/^".+"$/);
    const unchanged = await fetch(`${second.baseUrl}${HASHMAP}/services`, {
      headers: { "If-None-Match": etag! },
    });
    expect(unchanged.status).toBe(304);
    expect(await unchanged.text()).toBe("");
  });

  it("shows another process's write on the very next read", async () => {
    const before = await b.get(`${HASHMAP}/services`);
    const etag = before.headers.get("etag")!;
    const made = await a.post(`${HASHMAP}/services`, { name: "made-elsewhere" });
    expect(made.status).toBe(201);
    const after = await fetch(`${second.baseUrl}${HASHMAP}/services`, {
      headers: { "If-None-Match": etag },
    });
    expect(after.status).toBe(200);
    expect(after.headers.get("etag")).not.toBe(etag);
    const body = (await after.json()) as { services: { name: string }[] };
    expect(body.services.map((service) => service.name)).toContain("made-elsewhere");

    const rpc = await fetch(`${second.baseUrl}/trpc/hashmap.services.list`);
    expect(JSON.stringify(await rpc.json())).toContain("made-elsewhere");
  });

  it("prices with another process's new rule at once", async () => {
    const service = await a.post(`${HASHMAP}/services`, { name: "snapshot-priced" });
    const quote = () =>
      b.post("/v1/rating/quote", {
        resources: [{ service: "snapshot-priced", volume: "2", desc: {} }],
      });
    expect((await quote()).text).toBe("0");
    const mapping = await a.post(`${HASHMAP}/mappings`, {
      service_id: service.body.service_id,
      cost: "1.25",
      type: "flat",
    });
    expect(mapping.status).toBe(201);
    expect((await quote()).text).toBe("2.5");
  });

  it("never keeps an answer that failed", async () => {
    const missing = `${HASHMAP}/services/4b0d3f0e-0000-4000-8000-000000000000`;
    expect((await b.get(missing)).status).toBe(404);
    expect((await b.get(missing)).headers.get("etag")).toBeNull();
  });
});

describe("READ_CACHE_MB=0", () => {
  let uncached: TestServer | undefined;
  afterAll(async () => {
    await uncached?.stop();
  });

  it("answers every read from the router, without an ETag", async () => {
    uncached = await startServer({ env: { READ_CACHE_MB: "0" } });
    const api = createClient(uncached.baseUrl);
    const answer = await api.get(`${HASHMAP}/services`);
    expect(answer.status).toBe(200);
    expect(answer.headers.get("etag")).toBeNull();
  });
});
