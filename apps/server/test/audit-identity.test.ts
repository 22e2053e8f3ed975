import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rpc, type Session, sessionHeaders, signInAdminAndReader } from "./support/auth.js";
import { createClient, HASHMAP } from "./support/client.js";
import { startServer, type TestServer } from "./support/server.js";

// The audit trail with real identities (AUTH_STRATEGY=local): events name the signed-in user, and
// reading the trail takes ratecard:read_audit (admins by default), over REST and RPC alike.

const ADMIN_PASSWORD = "correct horse battery staple";
const AUDIT = "/v1/ratecard/audit";

let server: TestServer;
let admin: Session;
let reader: Session;

beforeAll(async () => {
  server = await startServer({
    env: { AUTH_STRATEGY: "local", RATECARD_ADMIN_PASSWORD: ADMIN_PASSWORD },
  });
  ({ admin, reader } = await signInAdminAndReader(server.baseUrl, ADMIN_PASSWORD));
});
afterAll(async () => {
  await server?.stop();
});

const as = (session: Session) => ({ headers: { "X-Auth-Token": session.token } });

describe("who", () => {
  it("records the signed-in user of a REST change and of an RPC change", async () => {
    const api = createClient(server.baseUrl);
    const overRest = await api.post(`${HASHMAP}/groups`, { name: "by-rest" }, as(admin));
    expect(overRest.status, overRest.text).toBe(201);
    const overRpc = await rpc(
      server.baseUrl,
      "hashmap.groups.create",
      { name: "by-rpc" },
      { type: "mutation", headers: sessionHeaders(admin) },
    );
    expect(overRpc.status, JSON.stringify(overRpc.body)).toBe(200);
    const { body } = await api.get(AUDIT, { query: { resource_type: "group" }, ...as(admin) });
    const users = await rpc(server.baseUrl, "accounts.users.list", undefined, {
      headers: sessionHeaders(admin),
    });
    const userId = users.data.users.find((user: any) => user.name === "admin")?.id;
    expect(userId).toEqual(expect.any(String));
    expect(body.events.map((event: any) => [event.resource_id, event.user_name])).toEqual([
      [overRpc.data.group_id, "admin"],
      [overRest.body.group_id, "admin"],
    ]);
    for (const event of body.events) {
      expect(event.user_id).toBe(userId);
      expect(event.address).toBe("127.0.0.1");
      expect(event.request_id).toMatch(/^req-/);
    }
    expect(body.events[1].request_id).toBe(overRest.headers.get("x-openstack-request-id"));
  });
});

describe("ratecard:read_audit", () => {
  it("refuses a reader over REST and RPC, with the rule's 403", async () => {
    const api = createClient(server.baseUrl);
    const refused = await api.get(AUDIT, as(reader));
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({
      faultcode: "Client",
      faultstring: "Policy doesn't allow ratecard:read_audit to be performed.",
      debuginfo: null,
    });
    const overRpc = await rpc(
      server.baseUrl,
      "audit.list",
      {},
      { headers: sessionHeaders(reader) },
    );
    expect(overRpc.status).toBe(403);
    expect(overRpc.code).toBe("FORBIDDEN");
  });

  it("lets an admin read it over REST and RPC, and refuses anyone without a token", async () => {
    const api = createClient(server.baseUrl);
    expect((await api.get(AUDIT, as(admin))).status).toBe(200);
    const overRpc = await rpc(server.baseUrl, "audit.list", {}, { headers: sessionHeaders(admin) });
    expect(overRpc.status).toBe(200);
    expect(overRpc.data.events.length).toBeGreaterThan(0);
    expect((await api.get(AUDIT)).status).toBe(401);
  });
});
