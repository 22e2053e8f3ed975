import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rpc, sessionHeaders, signIn, type Session } from "./support/auth.js";
import { createClient } from "./support/client.js";
import { startServer, type TestServer } from "./support/server.js";

// Local accounts (AUTH_STRATEGY=local) in the audit trail: one event per user create, update and
// delete and per API token issue and revoke, naming who did it, and never a password, a secret or
// a hash of either; a refused write appends nothing. Console sign-in and sign-out are not changes
// to resources and append nothing (docs/audit.md).

const ADMIN_PASSWORD = "correct horse battery staple";
const USER_PASSWORD = "a user password 123";
const NEW_PASSWORD = "a brand new password 456";
const AUDIT = "/v1/ratecard/audit";
const UNKNOWN_ID = "00000000-0000-4000-8000-000000000000";

let server: TestServer;
let admin: Session;
let adminId: string;

beforeAll(async () => {
  server = await startServer({
    env: { AUTH_STRATEGY: "local", RATECARD_ADMIN_PASSWORD: ADMIN_PASSWORD },
  });
  admin = await signIn(server.baseUrl, { username: "admin", password: ADMIN_PASSWORD });
  adminId = admin.body.user?.id ?? (await userIdOf("admin"));
});
afterAll(async () => {
  await server?.stop();
});

async function call(session: Session, procedure: string, input: unknown, type = "mutation") {
  const answer = await rpc(server.baseUrl, procedure, input, {
    type: type as "query" | "mutation",
    headers: sessionHeaders(session),
  });
  return answer;
}

async function userIdOf(name: string): Promise<string> {
  const users = await call(admin, "accounts.users.list", undefined, "query");
  return users.data.users.find((user: any) => user.name === name).id;
}

/** Every event of the trail, newest first. */
async function trail(query: Record<string, string> = {}): Promise<any[]> {
  const api = createClient(server.baseUrl);
  const { status, body } = await api.get(AUDIT, {
    query: { limit: "1000", ...query },
    headers: { "X-Auth-Token": admin.token },
  });
  expect(status).toBe(200);
  return body.events;
}

/** No password, secret or hash of either anywhere in the events. */
function expectNoSecrets(events: any[], secrets: string[]): void {
  const text = JSON.stringify(events);
  for (const secret of secrets) expect(text).not.toContain(secret);
  expect(text).not.toMatch(/argon2|password_?hash|token_?hash|"secret"/i);
}

describe("users", () => {
  it("records create, update (role, password) and delete, one event each, by the admin", async () => {
    const before = (await trail()).length;
    const created = await call(admin, "accounts.users.create", {
      name: "audited",
      role: "reader",
      password: USER_PASSWORD,
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const id = created.data.id;
    // Sign-ins are not audited; the session is revoked by the password change below.
    await signIn(server.baseUrl, { username: "audited", password: USER_PASSWORD });

    const promoted = await call(admin, "accounts.users.update", { id, role: "admin" });
    expect(promoted.status, JSON.stringify(promoted.body)).toBe(200);
    const renamed = await call(admin, "accounts.users.update", { id, password: NEW_PASSWORD });
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
    const deleted = await call(admin, "accounts.users.delete", { id });
    expect(deleted.status, JSON.stringify(deleted.body)).toBe(200);

    const all = await trail();
    expect(all.length - before).toBe(4);
    const events = (await trail({ resource_type: "user", resource_id: id })).reverse();
    expect(events.map((event) => event.operation)).toEqual([
      "create",
      "update",
      "update",
      "delete",
    ]);
    for (const event of events) {
      expect(event).toMatchObject({
        resource_type: "user",
        resource_id: id,
        resource_revision: null,
        user_id: adminId,
        user_name: "admin",
        address: "127.0.0.1",
      });
      expect(event.request_id).toMatch(/^req-/);
    }
    const [create, promote, password, remove] = events;
    expect(create.before).toBeNull();
    expect(create.after).toEqual(created.data);
    expect(promote.before).toEqual(created.data);
    expect(promote.after).toEqual(promoted.data);
    expect(promote.cascade).toBeNull();
    expect(password.before).toEqual(promoted.data);
    expect(password.after).toEqual(renamed.data);
    expect(password.cascade).toEqual({ password_changed: true, sessions_revoked: 1 });
    expect(remove.before).toEqual(renamed.data);
    expect(remove.after).toBeNull();
    expect(remove.cascade.deleted.tokens).toHaveLength(1);
    expect(remove.cascade.deleted.tokens[0]).toMatchObject({ userId: id, kind: "session" });
    for (const event of events) {
      expect(Object.keys(event.after ?? event.before).sort()).toEqual([
        "createdAt",
        "id",
        "name",
        "role",
        "updatedAt",
      ]);
    }
    expectNoSecrets(events, [USER_PASSWORD, NEW_PASSWORD, admin.token]);
  });

  it("appends nothing for a refused write", async () => {
    const taken = await call(admin, "accounts.users.create", {
      name: "taken",
      role: "reader",
      password: USER_PASSWORD,
    });
    expect(taken.status).toBe(200);
    const before = await trail();

    const refusals = [
      // Duplicate name, weak password, unknown id, last admin (demotion and deletion).
      await call(admin, "accounts.users.create", {
        name: "taken",
        role: "reader",
        password: USER_PASSWORD,
      }),
      await call(admin, "accounts.users.create", { name: "weak", role: "reader", password: "x" }),
      await call(admin, "accounts.users.update", { id: UNKNOWN_ID, role: "admin" }),
      await call(admin, "accounts.users.update", { id: UNKNOWN_ID, password: NEW_PASSWORD }),
      await call(admin, "accounts.users.delete", { id: UNKNOWN_ID }),
      await call(admin, "accounts.users.update", { id: adminId, role: "reader" }),
      await call(admin, "accounts.users.delete", { id: adminId }),
      await call(admin, "accounts.tokens.revoke", { id: UNKNOWN_ID }),
    ];
    expect(refusals.map((answer) => answer.status)).toEqual([
      409, 400, 404, 404, 404, 409, 409, 404,
    ]);
    expect(await trail()).toEqual(before);
    expect(await userIdOf("admin")).toBe(adminId);
  });
});

describe("tokens", () => {
  it("records an API token's issue and revocation by its owner, never its secret", async () => {
    const created = await call(admin, "accounts.users.create", {
      name: "scripter",
      role: "reader",
      password: USER_PASSWORD,
    });
    expect(created.status).toBe(200);
    const before = (await trail()).length;
    const scripter = await signIn(server.baseUrl, {
      username: "scripter",
      password: USER_PASSWORD,
    });
    const issued = await call(scripter, "accounts.tokens.create", {
      name: "ci",
      expiresInDays: 30,
    });
    expect(issued.status, JSON.stringify(issued.body)).toBe(200);
    const { secret, token } = issued.data;
    // The token authenticates (a reader may not list modules: 403, not 401); using it appends
    // nothing.
    const used = await createClient(server.baseUrl).get(`/v1/rating/modules`, {
      headers: { "X-Auth-Token": secret },
    });
    expect(used.status).toBe(403);

    const revoked = await call(admin, "accounts.tokens.revoke", { id: token.id });
    expect(revoked.status).toBe(200);
    // Revoking it again changes nothing: no event.
    const again = await call(admin, "accounts.tokens.revoke", { id: token.id });
    expect(again.status).toBe(200);
    expect(again.data.revokedAt).toBe(revoked.data.revokedAt);

    const all = await trail();
    expect(all.length - before).toBe(2);
    const [revoke, issue] = await trail({ resource_type: "token", resource_id: token.id });
    expect(issue).toMatchObject({
      operation: "create",
      resource_type: "token",
      resource_id: token.id,
      user_id: created.data.id,
      user_name: "scripter",
      before: null,
      after: token,
    });
    expect(revoke).toMatchObject({
      operation: "update",
      user_id: adminId,
      user_name: "admin",
      before: { ...token, lastUsedAt: revoke.before.lastUsedAt, revokedAt: null },
      after: revoked.data,
    });
    expect(revoke.after.revokedAt).toEqual(expect.any(String));
    expectNoSecrets([issue, revoke], [secret, secret.slice(10), USER_PASSWORD, scripter.token]);
    // Filtering by operation and user works for the new types.
    const byScripter = await trail({ user_id: created.data.id, operation: "create" });
    expect(byScripter.map((event) => event.resource_id)).toEqual([token.id]);
  });

  it("does not audit console sign-in and sign-out", async () => {
    const before = await trail();
    const session = await signIn(server.baseUrl, { username: "admin", password: ADMIN_PASSWORD });
    const out = await fetch(`${server.baseUrl}/auth/logout`, {
      method: "POST",
      headers: sessionHeaders(session),
    });
    expect(out.status).toBeLessThan(300);
    expect(await trail()).toEqual(before);
  });
});
