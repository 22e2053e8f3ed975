import { describe, expect, it } from "vitest";
import { localAccountsServer, rpc, type Session, sessionHeaders } from "./support/auth.js";
import { createClient, HASHMAP } from "./support/client.js";

// The audit trail with real identities (AUTH_STRATEGY=local): events name the signed-in user, and
// reading the trail takes ratecard:read_audit (admins by default), over REST and RPC alike.

const AUDIT = "/v1/ratecard/audit";

const local = localAccountsServer("ratecard-audit-identity-");

const as = (session: Session) => ({ headers: { "X-Auth-Token": session.token } });

describe("who", () => {
  it("records the signed-in user of a REST change and of an RPC change", async () => {
    const api = createClient(local.baseUrl);
    const overRest = await api.post(`${HASHMAP}/groups`, { name: "by-rest" }, as(local.admin));
    expect(overRest.status, overRest.text).toBe(201);
    const overRpc = await rpc(
      local.baseUrl,
      "hashmap.groups.create",
      { name: "by-rpc" },
      { type: "mutation", headers: sessionHeaders(local.admin) },
    );
    expect(overRpc.status, JSON.stringify(overRpc.body)).toBe(200);
    const { body } = await api.get(AUDIT, {
      query: { resource_type: "group" },
      ...as(local.admin),
    });
    const users = await rpc(local.baseUrl, "accounts.users.list", undefined, {
      headers: sessionHeaders(local.admin),
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
    const api = createClient(local.baseUrl);
    const refused = await api.get(AUDIT, as(local.reader));
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({
      faultcode: "Client",
      faultstring: "Policy doesn't allow ratecard:read_audit to be performed.",
      debuginfo: null,
    });
    const overRpc = await rpc(
      local.baseUrl,
      "audit.list",
      {},
      { headers: sessionHeaders(local.reader) },
    );
    expect(overRpc.status).toBe(403);
    expect(overRpc.code).toBe("FORBIDDEN");
  });

  it("lets an admin read it over REST and RPC, and refuses anyone without a token", async () => {
    const api = createClient(local.baseUrl);
    expect((await api.get(AUDIT, as(local.admin))).status).toBe(200);
    const overRpc = await rpc(
      local.baseUrl,
      "audit.list",
      {},
      { headers: sessionHeaders(local.admin) },
    );
    expect(overRpc.status).toBe(200);
    expect(overRpc.data.events.length).toBeGreaterThan(0);
    expect((await api.get(AUDIT)).status).toBe(401);
  });
});
