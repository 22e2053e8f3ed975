import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  rpc,
  runServerExpectingExit,
  sessionHeaders,
  signIn,
  type Session,
} from "./support/auth.js";
import { cliFault, createCliWith } from "./support/cli.js";
import { createClient, HASHMAP, PYSCRIPTS } from "./support/client.js";
import { startServer, type TestServer } from "./support/server.js";

// The local strategy over real HTTP: Ratecard's own accounts, API tokens, console sessions, and
// CloudKitty's policy applied to them (admin and reader roles).

const ADMIN_PASSWORD = "correct horse battery staple";
const READER_PASSWORD = "reader password 123";
const SESSION_TTL_SECONDS = 2;

const UNAUTHORIZED_BODY = {
  error: {
    code: 401,
    title: "Unauthorized",
    message: "The request you have made requires authentication.",
  },
};
const policyFault = (rule: string) => ({
  faultcode: "Client",
  faultstring: `Policy doesn't allow ${rule} to be performed.`,
  debuginfo: null,
});

/** One route of each kind CloudKitty guards, with the rule that guards it. */
const ROUTES: { method: string; path: string; body?: unknown; rule: string }[] = [
  { method: "GET", path: `${HASHMAP}/services`, rule: "rating:module_config" },
  {
    method: "POST",
    path: `${HASHMAP}/services`,
    body: { name: "x" },
    rule: "rating:module_config",
  },
  { method: "GET", path: `${HASHMAP}/types`, rule: "rating:module_config" },
  { method: "GET", path: `${HASHMAP}/mappings`, rule: "rating:module_config" },
  { method: "PUT", path: `${HASHMAP}/services`, body: {}, rule: "rating:module_config" },
  { method: "GET", path: `${PYSCRIPTS}/scripts`, rule: "rating:module_config" },
  { method: "GET", path: "/v1/rating/modules", rule: "rating:list_modules" },
  { method: "GET", path: "/v1/rating/modules/hashmap", rule: "rating:get_module" },
  {
    method: "PUT",
    path: "/v1/rating/modules/hashmap",
    body: { module_id: "hashmap", enabled: true, priority: 1 },
    rule: "rating:update_module",
  },
];

let server: TestServer;
let admin: Session;
let reader: Session;
let adminToken: string;
let readerToken: string;

function call(token: string | undefined, route: { method: string; path: string; body?: unknown }) {
  return createClient(server.baseUrl).request(route.method, route.path, {
    body: route.body,
    headers: token === undefined ? {} : { "X-Auth-Token": token },
  });
}

beforeAll(async () => {
  server = await startServer({
    env: {
      AUTH_STRATEGY: "local",
      RATECARD_ADMIN_PASSWORD: ADMIN_PASSWORD,
      LOG_LEVEL: "trace",
    },
  });
  admin = await signIn(server.baseUrl, { username: "admin", password: ADMIN_PASSWORD });
  const created = await rpc(
    server.baseUrl,
    "accounts.users.create",
    { name: "auditor", role: "reader", password: READER_PASSWORD },
    { type: "mutation", headers: sessionHeaders(admin) },
  );
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  reader = await signIn(server.baseUrl, { username: "auditor", password: READER_PASSWORD });
  const tokenFor = async (session: Session) => {
    const answer = await rpc(
      server.baseUrl,
      "accounts.tokens.create",
      { name: "tests", expiresInDays: 1 },
      { type: "mutation", headers: sessionHeaders(session) },
    );
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    return answer.data.secret as string;
  };
  adminToken = await tokenFor(admin);
  readerToken = await tokenFor(reader);
});
afterAll(async () => {
  await server?.stop();
});

describe("401 before routing", () => {
  it.each(ROUTES)("$method $path without a token", async (route) => {
    const answer = await call(undefined, route);
    expect(answer.status).toBe(401);
    expect(answer.body).toEqual(UNAUTHORIZED_BODY);
    expect(answer.headers.get("www-authenticate")).toBe('Ratecard realm="ratecard"');
  });

  it.each(["garbage", "rc_" + "A".repeat(43), "with space", "x".repeat(9000)])(
    "a bad token (%s) is refused",
    async (token) => {
      const answer = await call(token, ROUTES[0]!);
      expect(answer.status).toBe(401);
      expect(answer.body).toEqual(UNAUTHORIZED_BODY);
    },
  );

  it("reads a refused request's body before answering, so the answer arrives whole", async () => {
    const big = JSON.stringify({ name: "x".repeat(2 * 1024 * 1024) });
    const refused = await call(undefined, {
      method: "POST",
      path: `${HASHMAP}/services`,
      body: big,
    });
    expect(refused.status).toBe(401);
    expect(refused.body).toEqual(UNAUTHORIZED_BODY);
    const forbidden = await call(readerToken, {
      method: "POST",
      path: `${HASHMAP}/services`,
      body: big,
    });
    expect(forbidden.status).toBe(403);
  });

  it("answers 401, not 405, for a method the route does not have", async () => {
    const answer = await call(undefined, { method: "PATCH", path: `${HASHMAP}/services` });
    expect(answer.status).toBe(401);
  });

  it("refuses a revoked API token at once", async () => {
    const made = await rpc(
      server.baseUrl,
      "accounts.tokens.create",
      { name: "short-lived", expiresInDays: 1 },
      { type: "mutation", headers: sessionHeaders(admin) },
    );
    const secret = made.data.secret as string;
    // The second read is served from the kept verdict and the kept answer, without waiting.
    expect((await call(secret, ROUTES[0]!)).status).toBe(200);
    expect((await call(secret, ROUTES[0]!)).status).toBe(200);
    const revoked = await rpc(
      server.baseUrl,
      "accounts.tokens.revoke",
      { id: made.data.token.id },
      { type: "mutation", headers: sessionHeaders(admin) },
    );
    expect(revoked.status, JSON.stringify(revoked.body)).toBe(200);
    expect((await call(secret, ROUTES[0]!)).status).toBe(401);
  });
});

describe("CloudKitty's policy", () => {
  it.each(ROUTES)("a reader is refused $method $path with $rule", async (route) => {
    const answer = await call(readerToken, route);
    expect(answer.status).toBe(403);
    expect(answer.body).toEqual(policyFault(route.rule));
  });

  it.each(ROUTES)("an admin passes $method $path", async (route) => {
    const answer = await call(adminToken, route);
    expect([401, 403]).not.toContain(answer.status);
  });

  it("lets any valid token quote", async () => {
    const quote = { method: "POST", path: "/v1/rating/quote", body: { resources: [] } };
    expect((await call(readerToken, quote)).status).toBe(200);
    expect((await call(undefined, quote)).status).toBe(401);
  });

  it("keeps the reference, the health check and the console public", async () => {
    for (const publicPath of ["/v1/openapi.json", "/docs", "/healthz", "/"]) {
      const answer = await fetch(`${server.baseUrl}${publicPath}`);
      expect(answer.status, publicPath).toBe(200);
    }
  });
});

describe("the console's session", () => {
  it("says who is signed in and what they may do", async () => {
    const answer = await fetch(`${server.baseUrl}/auth/session`, {
      headers: { cookie: reader.cookie },
    });
    expect(answer.status).toBe(200);
    const body: any = await answer.json();
    expect(body).toMatchObject({
      strategy: "local",
      user: { name: "auditor", roles: ["reader"] },
      can: {
        writeRules: false,
        updateModules: false,
        manageAccounts: false,
        preview: true,
        readAudit: false,
        seeWarnings: true,
        acknowledgeWarnings: false,
      },
    });
    expect(body.csrfToken).toBe(reader.csrfToken);
  });

  it("asks for a sign-in without a session", async () => {
    const answer = await fetch(`${server.baseUrl}/auth/session`);
    expect(answer.status).toBe(401);
    expect(await answer.json()).toMatchObject({
      strategy: "local",
      signIn: { fields: ["username", "password"] },
      faultcode: "Client",
    });
  });

  it("sets an HttpOnly, SameSite=Strict cookie", async () => {
    const answer = await fetch(`${server.baseUrl}/auth/login`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ username: "admin", password: ADMIN_PASSWORD }),
    });
    const cookie = answer.headers.get("set-cookie") ?? "";
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Strict/i);
    expect(cookie).not.toMatch(/Secure/i);
  });

  it("reads a sign-in that is not JSON to its end before refusing it", async () => {
    const answer = await fetch(`${server.baseUrl}/auth/login`, {
      method: "POST",
      headers: { "Content-Type": "text/plain" },
      body: "x".repeat(2 * 1024 * 1024),
    });
    expect(answer.status).toBe(400);
    expect(((await answer.json()) as any).faultstring).toBe(
      "Send the credentials as application/json.",
    );
  });

  it("refuses a wrong password with a clear fault", async () => {
    const answer = await fetch(`${server.baseUrl}/auth/login`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ username: "admin", password: "wrong" }),
    });
    expect(answer.status).toBe(401);
    expect(await answer.json()).toEqual({
      faultcode: "Client",
      faultstring: "The username or password is incorrect.",
      debuginfo: null,
    });
  });

  it("lets a reader read but not write over RPC", async () => {
    const list = await rpc(server.baseUrl, "hashmap.services.list", undefined, {
      headers: sessionHeaders(reader),
    });
    expect(list.status).toBe(200);
    const write = await rpc(
      server.baseUrl,
      "hashmap.services.create",
      { name: "reader-made" },
      { type: "mutation", headers: sessionHeaders(reader) },
    );
    expect(write.status).toBe(403);
    expect(write.code).toBe("FORBIDDEN");
    expect(write.body.error.message).toBe(
      "Policy doesn't allow rating:module_config to be performed.",
    );
  });

  it("refuses an RPC mutation without the CSRF token", async () => {
    const write = await rpc(
      server.baseUrl,
      "hashmap.services.create",
      { name: "csrf-less" },
      { type: "mutation", headers: { cookie: admin.cookie } },
    );
    expect(write.status).toBe(403);
    expect(write.body.error.message).toMatch(/CSRF/);
    const forged = await rpc(
      server.baseUrl,
      "hashmap.services.create",
      { name: "csrf-forged" },
      { type: "mutation", headers: { cookie: admin.cookie, "x-csrf-token": reader.csrfToken } },
    );
    expect(forged.status).toBe(403);
    const made = await rpc(
      server.baseUrl,
      "hashmap.services.create",
      { name: "csrf-ok" },
      { type: "mutation", headers: sessionHeaders(admin) },
    );
    expect(made.status, JSON.stringify(made.body)).toBe(200);
  });

  it("answers UNAUTHORIZED to RPC calls without a session", async () => {
    const list = await rpc(server.baseUrl, "hashmap.services.list", undefined);
    expect(list.status).toBe(401);
    expect(list.code).toBe("UNAUTHORIZED");
  });

  it("keeps account administration to admins", async () => {
    const users = await rpc(server.baseUrl, "accounts.users.list", undefined, {
      headers: sessionHeaders(reader),
    });
    expect(users.status).toBe(403);
    expect(users.body.error.message).toBe(
      "Policy doesn't allow ratecard:manage_accounts to be performed.",
    );
  });

  it("ends the session on sign-out", async () => {
    const session = await signIn(server.baseUrl, { username: "admin", password: ADMIN_PASSWORD });
    const out = await fetch(`${server.baseUrl}/auth/logout`, {
      method: "POST",
      headers: sessionHeaders(session),
    });
    expect(out.status).toBe(204);
    expect(out.headers.get("set-cookie")).toMatch(/ratecard_session=;/);
    expect((await call(session.token, ROUTES[0]!)).status).toBe(401);
  });
});

describe("the real cloudkitty CLI with a local API token", () => {
  const cliAs = (token: string) =>
    createCliWith([
      "--os-auth-type",
      "admin_token",
      "--os-endpoint",
      server.baseUrl,
      "--os-token",
      token,
    ]);

  it("runs hashmap and pyscripts commands as an admin", async () => {
    const cli = cliAs(adminToken);
    const [created] = await cli.rows("hashmap", "service", "create", "cli-token-service");
    expect(created).toMatchObject({ Name: "cli-token-service" });
    const services = await cli.rows("hashmap", "service", "list");
    expect(services.map((row) => row.Name)).toContain("cli-token-service");
    expect(await cli.rows("pyscript", "list")).toEqual([]);
  });

  it("shows a reader the policy refusal as JSON", async () => {
    const result = await cliAs(readerToken).run("hashmap", "service", "list");
    expect(result.exitCode).toBe(1);
    expect(cliFault(result)).toEqual({
      status: 403,
      body: policyFault("rating:module_config"),
    });
  });
});

describe("session expiry", () => {
  let short: TestServer | undefined;
  afterAll(async () => {
    await short?.stop();
  });

  it("refuses an expired session token", async () => {
    short = await startServer({
      env: {
        AUTH_STRATEGY: "local",
        RATECARD_ADMIN_PASSWORD: ADMIN_PASSWORD,
        SESSION_TTL_SECONDS: String(SESSION_TTL_SECONDS),
      },
    });
    const session = await signIn(short.baseUrl, { username: "admin", password: ADMIN_PASSWORD });
    const api = createClient(short.baseUrl);
    const headers = { "X-Auth-Token": session.token };
    expect((await api.get(`${HASHMAP}/services`, { headers })).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, SESSION_TTL_SECONDS * 1000 + 500));
    expect((await api.get(`${HASHMAP}/services`, { headers })).status).toBe(401);
    const console = await fetch(`${short.baseUrl}/auth/session`, {
      headers: { cookie: session.cookie },
    });
    expect(console.status).toBe(401);
  });
});

describe("secrets stay out of the log", () => {
  it("logs no token and no password", () => {
    const log = server.output();
    expect(log.length).toBeGreaterThan(0);
    for (const secret of [ADMIN_PASSWORD, READER_PASSWORD, adminToken, readerToken, admin.token])
      expect(log).not.toContain(secret);
  });
});

describe("a policy file", () => {
  let custom: TestServer | undefined;
  afterAll(async () => {
    await custom?.stop();
  });

  /** A local-accounts server (replacing the previous one) with this policy file, the admin signed in. */
  async function withPolicy(policy: string): Promise<{ server: TestServer; session: Session }> {
    await custom?.stop();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ratecard-policy-"));
    const policyFile = path.join(dir, "policy.yaml");
    fs.writeFileSync(policyFile, policy);
    custom = await startServer({
      env: {
        AUTH_STRATEGY: "local",
        RATECARD_ADMIN_PASSWORD: ADMIN_PASSWORD,
        POLICY_FILE: policyFile,
      },
    });
    const session = await signIn(custom.baseUrl, { username: "admin", password: ADMIN_PASSWORD });
    return { server: custom, session };
  }

  it("can grant rating:module_config to readers", async () => {
    const { server: policed, session } = await withPolicy(
      '"rating:module_config": "role:reader"\n',
    );
    const api = createClient(policed.baseUrl);
    const headers = { "X-Auth-Token": session.token };
    // The local admin also holds the reader role.
    const made = await api.post(`${HASHMAP}/services`, { name: "by-policy" }, { headers });
    expect(made.status).toBe(201);
    expect((await api.get(`${HASHMAP}/services`, { headers })).status).toBe(200);
  });

  it("narrowing ratecard:warnings hides warnings from every console query, not only hashmap.warnings", async () => {
    const { server: policed, session } = await withPolicy('"ratecard:warnings": "role:nobody"\n');
    const headers = sessionHeaders(session);
    const me: any = await (await fetch(`${policed.baseUrl}/auth/session`, { headers })).json();
    expect(me.can.seeWarnings).toBe(false);
    const made = await rpc(
      policed.baseUrl,
      "hashmap.services.create",
      { name: "compute" },
      { type: "mutation", headers },
    );
    expect(made.status).toBe(200);
    const scope = { service_id: made.data.service_id };
    for (const [procedure, input] of [
      ["hashmap.warnings", undefined],
      ["console.warnings", scope],
      ["console.rules", { ...scope, limit: 1, warnings: true }],
    ] as const) {
      const refused = await rpc(policed.baseUrl, procedure, input, { headers });
      expect(refused.status, procedure).toBe(403);
      expect(refused.code, procedure).toBe("FORBIDDEN");
    }
    const rows = await rpc(policed.baseUrl, "console.rules", { ...scope, limit: 1 }, { headers });
    expect(rows.status).toBe(200);
    expect(rows.data.total).toBe(0);
  });

  it("that cannot be parsed stops the server, naming the line", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ratecard-policy-"));
    const policyFile = path.join(dir, "policy.yaml");
    fs.writeFileSync(policyFile, '"rating:quote": ""\n"rating:module_config": "role:admin or ("\n');
    const { code, output } = await runServerExpectingExit({
      AUTH_STRATEGY: "local",
      RATECARD_ADMIN_PASSWORD: ADMIN_PASSWORD,
      POLICY_FILE: policyFile,
      DATABASE_URL: `file:${path.join(dir, "db.sqlite")}`,
      PORT: "0",
    });
    expect(code).toBe(1);
    expect(output).toMatch(/policy\.yaml:2/);
  });
});

describe("secure by default", () => {
  it("refuses to listen beyond loopback without an AUTH_STRATEGY", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ratecard-open-"));
    const env: Record<string, string> = {
      HOST: "0.0.0.0",
      PORT: "0",
      DATABASE_URL: `file:${path.join(dir, "db.sqlite")}`,
    };
    const { code, output } = await runServerExpectingExit({ ...env, AUTH_STRATEGY: "" });
    expect(code).toBe(1);
    expect(output.trim().split("\n")).toHaveLength(1);
    expect(output).toMatch(/AUTH_STRATEGY=keystone/);
    expect(output).toMatch(/AUTH_STRATEGY=local/);
  });
});

describe("failed attempts", () => {
  let limited: TestServer | undefined;
  afterAll(async () => {
    await limited?.stop();
  });

  it("answer 429 with Retry-After once a client fails too often", async () => {
    limited = await startServer({
      env: {
        AUTH_STRATEGY: "local",
        RATECARD_ADMIN_PASSWORD: ADMIN_PASSWORD,
        LOGIN_ATTEMPTS_PER_MINUTE: "3",
        AUTH_FAILURES_PER_MINUTE: "3",
      },
    });
    const login = () =>
      fetch(`${limited!.baseUrl}/auth/login`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ username: "admin", password: "not it" }),
      });
    for (let i = 0; i < 3; i++) expect((await login()).status).toBe(401);
    const refused = await login();
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(((await refused.json()) as any).faultstring).toMatch(
      /Too many failed authentication attempts/,
    );

    const api = createClient(limited.baseUrl);
    const bad = { headers: { "X-Auth-Token": "rc_wrong" } };
    for (let i = 0; i < 3; i++)
      expect((await api.get(`${HASHMAP}/services`, bad)).status).toBe(401);
    expect((await api.get(`${HASHMAP}/services`, bad)).status).toBe(429);
  });
});
