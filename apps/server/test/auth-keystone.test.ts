import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rpc, sessionHeaders, signIn } from "./support/auth.js";
import { HASHMAP } from "./support/client.js";
import {
  KEYSTONE_URL,
  SEED_PASSWORD,
  keystoneForTests,
  keystoneVerdict,
  privateKeystone,
  revokeToken,
  shortLivedToken,
  sleepUntil,
  userToken,
  type ApplicationCredential,
  type KeystoneInstance,
  type SeededUser,
} from "./support/keystone.js";
import { startServer, type TestServer } from "./support/server.js";

// The keystone strategy over real HTTP against the real Keystone: every CloudKitty REST route (read
// from the server's own OpenAPI document, plus the forms it does not list) for every kind of
// caller, the console's session, and Keystone going away. What is expected is docs/identity.md.

const haveKeystone = await keystoneForTests();

const UNAUTHORIZED_BODY = {
  error: {
    code: 401,
    title: "Unauthorized",
    message: "The request you have made requires authentication.",
  },
};
const clientFault = (faultstring: string) => ({
  faultcode: "Client",
  faultstring,
  debuginfo: null,
});
const policyFault = (rule: string) => clientFault(`Policy doesn't allow ${rule} to be performed.`);
const NO_METRICS = "Invalid endpoint: no metrics in current configuration.";
const SOME_ID = "6f1d3c44-5a8e-4b7c-9d0e-0123456789ab";

function keystoneEnv(url: string): Record<string, string> {
  return {
    AUTH_STRATEGY: "keystone",
    KEYSTONE_URL: url,
    KEYSTONE_USERNAME: "ratecard",
    KEYSTONE_PASSWORD: SEED_PASSWORD,
    KEYSTONE_PROJECT_NAME: "service",
    // Hundreds of refused tokens per minute from one address are this test's point, not an attack.
    AUTH_FAILURES_PER_MINUTE: "1000000",
  };
}

interface Route {
  method: string;
  path: string;
  body?: unknown;
}

interface Answer {
  status: number;
  headers: Headers;
  body: any;
}

async function call(baseUrl: string, token: string | undefined, route: Route): Promise<Answer> {
  const response = await fetch(new URL(route.path, baseUrl), {
    method: route.method,
    headers: {
      "Content-Type": "application/json",
      ...(token === undefined ? {} : { "X-Auth-Token": token }),
    },
    body: route.body === undefined ? undefined : JSON.stringify(route.body),
  });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON: kept as text for the failure message
  }
  return { status: response.status, headers: response.headers, body };
}

/**
 * The rules docs/identity.md (and CloudKitty's controllers) put on a REST request, in the order
 * they are checked. Written out here rather than imported from the edge, so the test can disagree.
 */
function expectedRules(method: string, template: string): string[] {
  if (template.startsWith("/v1/rating/module_config/")) {
    return template.endsWith("/hashmap/preview")
      ? ["rating:module_config", "ratecard:preview"]
      : ["rating:module_config"];
  }
  // CloudKitty's RatingController.reload_modules (GET only) authorizes rating:module_config.
  if (template === "/v1/rating/reload_modules")
    return method === "GET" ? ["rating:module_config"] : [];
  if (template === "/v1/rating/modules") {
    if (method === "GET") return ["rating:list_modules"];
    // The collection form of the module update (module_id in the query or the body) is still an
    // update: CloudKitty's put() takes module_id from either and then checks the rule.
    if (method === "PUT") return ["rating:update_module"];
    return [];
  }
  if (template.startsWith("/v1/rating/modules/")) {
    if (method === "GET") return ["rating:get_module"];
    if (method === "PUT") return ["rating:update_module"];
    return [];
  }
  // Ratecard's own path, outside CloudKitty's namespaces.
  if (template === "/v1/ratecard/audit") return ["ratecard:read_audit"];
  if (template === "/v1/ratecard/ruleset" || template === "/v1/ratecard/ruleset/plan")
    return ["ratecard:export_ruleset"];
  if (template === "/v1/ratecard/ruleset/apply") return ["ratecard:apply_ruleset"];
  if (template === "/v1/ratecard/targets" || template.startsWith("/v1/ratecard/targets/"))
    return ["ratecard:manage_targets"];
  if (template.startsWith("/v1/ratecard/warnings/")) return ["ratecard:acknowledge_warnings"];
  // rating:quote and info:* default to "" (any valid token).
  return [];
}

const RULES_ONLY_ADMINS_PASS = new Set([
  "rating:module_config",
  "rating:list_modules",
  "rating:get_module",
  "rating:update_module",
  // Ratecard's audit trail, like its account management, is for admins only.
  "ratecard:read_audit",
  // CloudKitty targets hold credentials.
  "ratecard:manage_targets",
  // Applying a rule set rewrites every rule.
  "ratecard:apply_ruleset",
  // Acknowledging a warning is a change to the rules' review: rule:rating:module_config.
  "ratecard:acknowledge_warnings",
]);

/** Rules that readers pass too (`role:reader or rule:rating:module_config`). */
const RULES_READERS_PASS = new Set(["ratecard:export_ruleset"]);
/** The callers of REFUSED_BY_ADMIN_RULES without Keystone's reader role in a project. */
const NOT_READERS = new Set(["ratecard (service)", "unscoped"]);

interface RouteCase extends Route {
  /** The OpenAPI template (or a description of the extra form). */
  template: string;
  rules: string[];
}

function fillTemplate(template: string): string {
  return template.replace(/\{(\w+)\}/g, (_, name: string) => {
    if (name === "module_id") return "hashmap";
    if (name === "metric_name" || name === "service_name") return "instance";
    return SOME_ID;
  });
}

function bodyFor(method: string, template: string): unknown {
  if (method === "GET" || method === "DELETE") return undefined;
  if (template === "/v1/rating/quote") return { resources: [] };
  if (template.startsWith("/v1/rating/modules"))
    return { module_id: "hashmap", enabled: true, priority: 1 };
  return {};
}

/** Every operation of the OpenAPI document, the collection forms of PUT/DELETE, and a few more. */
function routeCases(document: any): RouteCase[] {
  const cases: RouteCase[] = [];
  for (const [template, operations] of Object.entries<Record<string, unknown>>(document.paths)) {
    for (const lower of Object.keys(operations)) {
      const method = lower.toUpperCase();
      cases.push({
        method,
        template,
        path: fillTemplate(template),
        body: bodyFor(method, template),
        rules: expectedRules(method, template),
      });
      // CloudKitty's client sends updates and deletes to the collection, the id in the body or query.
      const item = /^(.*)\/\{(\w+)\}$/.exec(template);
      if (item && (method === "PUT" || method === "DELETE")) {
        const [, collection, idParam] = item as unknown as [string, string, string];
        const id = idParam === "module_id" ? "hashmap" : SOME_ID;
        cases.push({
          method,
          template: `${collection}?${idParam}=`,
          path: `${collection}?${idParam}=${id}`,
          body: bodyFor(method, template),
          rules: expectedRules(method, collection),
        });
        if (method === "PUT")
          cases.push({
            method,
            template: `${collection} {${idParam}}`,
            path: collection,
            body: { ...(bodyFor(method, template) as object), [idParam]: id },
            rules: expectedRules(method, collection),
          });
      }
    }
  }
  const extra: [string, string][] = [
    // Methods the routes do not have: still 401, then module_config's 403, before any 405.
    ["PATCH", `${HASHMAP}/services`],
    ["DELETE", `${HASHMAP}/services`],
    ["POST", "/v1/rating/modules"],
    ["POST", "/v1/rating/reload_modules"],
    ["POST", "/v1/info/metrics"],
    // Paths no route has.
    ["GET", "/v1/rating/module_config/nothing"],
    ["GET", "/v1/nothing"],
    // Trailing slashes, as CloudKitty's client sends them.
    ["GET", `${HASHMAP}/services/`],
    ["PUT", "/v1/rating/modules/hashmap/"],
  ];
  for (const [method, routePath] of extra) {
    const template = routePath.replace(/\/+$/, "");
    cases.push({
      method,
      template: routePath,
      path: routePath,
      body: bodyFor(method, template),
      rules: expectedRules(method, template),
    });
  }
  return cases;
}

describe.skipIf(!haveKeystone)("AUTH_STRATEGY=keystone over HTTP", () => {
  let server: TestServer;
  let routes: RouteCase[];
  /** Each kind of caller by name, with the token it sends (none for "no token"). */
  const callers = new Map<string, string | undefined>();
  const credentials: ApplicationCredential[] = [];

  const INVALID = ["no token", "garbage token", "revoked token", "expired token"];
  const REFUSED_BY_ADMIN_RULES = ["demo-reader", "demo-member", "ratecard (service)", "unscoped"];
  const ADMINS = ["rating-admin", "admin", "admin (system scope)"];
  const VALID = [...REFUSED_BY_ADMIN_RULES, ...ADMINS];

  const tokenOf = (name: string) => callers.get(name);

  beforeAll(async () => {
    // The expired token's credential is made first: its two seconds pass while the rest starts.
    const expiring = await shortLivedToken("rating-admin", 2_000);
    credentials.push(expiring.credential);
    const [started, revoked, ...issued] = await Promise.all([
      startServer({ env: keystoneEnv(KEYSTONE_URL) }),
      userToken("rating-admin"),
      ...(["demo-reader", "demo-member", "ratecard", "rating-admin", "admin"] as SeededUser[]).map(
        (user) => userToken(user),
      ),
      userToken("admin", { system: true }),
      userToken("demo-member", { project: null }),
    ]);
    server = started;
    // Revoked before the server ever sees it: nothing is cached for it.
    await revokeToken(revoked.token);
    const [reader, member, service, ratingAdmin, admin, system, unscoped] = issued.map(
      (token) => token.token,
    );
    const tokens: [string, string | undefined][] = [
      ["no token", undefined],
      ["garbage token", "garbage"],
      ["revoked token", revoked.token],
      ["expired token", expiring.token],
      ["demo-reader", reader],
      ["demo-member", member],
      ["ratecard (service)", service],
      ["unscoped", unscoped],
      ["rating-admin", ratingAdmin],
      ["admin", admin],
      ["admin (system scope)", system],
    ];
    for (const [name, token] of tokens) callers.set(name, token);

    const document = await (await fetch(`${server.baseUrl}/v1/openapi.json`)).json();
    routes = routeCases(document);
    await sleepUntil(expiring.expiresAt, 250);
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
    await Promise.all(credentials.map((credential) => credential.delete()));
  });

  it("enumerates every documented route, including /v1/info", () => {
    const templates = new Set(routes.map((route) => route.template));
    for (const template of [
      `${HASHMAP}/services/{service_id}`,
      "/v1/rating/modules/{module_id}",
      "/v1/rating/quote",
      "/v1/rating/reload_modules",
      "/v1/info/config",
      "/v1/info/metrics/{metric_name}",
      "/v1/info/services/{service_name}",
      `${HASHMAP}/mappings {mapping_id}`,
      `${HASHMAP}/groups?group_id=`,
    ])
      expect(templates, template).toContain(template);
    expect(routes.length).toBeGreaterThan(50);
  });

  /** Runs every route for one caller and lists each answer that differs from what is expected. */
  async function mismatches(
    token: string | undefined,
    judge: (route: RouteCase, answer: Answer) => unknown,
  ) {
    const found: { request: string; expected: unknown; got: unknown }[] = [];
    for (const route of routes) {
      const answer = await call(server.baseUrl, token, route);
      const expected = judge(route, answer);
      if (expected !== null)
        found.push({
          request: `${route.method} ${route.path}${route.body === undefined ? "" : ` ${JSON.stringify(route.body)}`}`,
          expected,
          got: { status: answer.status, body: answer.body },
        });
    }
    return found;
  }

  it.each(INVALID)(
    "refuses a request with %s: 401 before routing, on every route",
    async (name) => {
      const found = await mismatches(tokenOf(name), (_, answer) => {
        const ok =
          answer.status === 401 &&
          JSON.stringify(answer.body) === JSON.stringify(UNAUTHORIZED_BODY) &&
          answer.headers.get("www-authenticate") === `Keystone uri="${KEYSTONE_URL}/v3"`;
        return ok ? null : { status: 401, body: UNAUTHORIZED_BODY };
      });
      expect(found).toEqual([]);
    },
  );

  it.each(REFUSED_BY_ADMIN_RULES)(
    "refuses %s every admin route with the rule's 403, and lets it quote and read /v1/info",
    async (name) => {
      const found = await mismatches(tokenOf(name), (route, answer) => {
        const refused = route.rules.find(
          (rule) =>
            RULES_ONLY_ADMINS_PASS.has(rule) ||
            (NOT_READERS.has(name) && RULES_READERS_PASS.has(rule)),
        );
        if (refused) {
          const fault = policyFault(refused);
          const ok = answer.status === 403 && JSON.stringify(answer.body) === JSON.stringify(fault);
          return ok ? null : { status: 403, body: fault };
        }
        return [401, 403].includes(answer.status) || answer.status >= 500
          ? "neither 401, 403 nor 5xx"
          : null;
      });
      expect(found).toEqual([]);
    },
  );

  it.each(ADMINS)("lets %s through on every route", async (name) => {
    const found = await mismatches(tokenOf(name), (_, answer) =>
      [401, 403].includes(answer.status) || answer.status >= 500
        ? "neither 401, 403 nor 5xx"
        : null,
    );
    expect(found).toEqual([]);
  });

  it.each(VALID)(
    "answers %s's quote and /v1/info as CloudKitty does without metrics",
    async (name) => {
      const token = tokenOf(name);
      const quote = await call(server.baseUrl, token, {
        method: "POST",
        path: "/v1/rating/quote",
        body: { resources: [] },
      });
      expect(quote.status).toBe(200);
      const config = await call(server.baseUrl, token, { method: "GET", path: "/v1/info/config" });
      expect({ status: config.status, body: config.body }).toEqual({
        status: 200,
        body: { metrics: {} },
      });
      for (const info of ["/v1/info/metrics", "/v1/info/metrics/instance", "/v1/info/services/"]) {
        const answer = await call(server.baseUrl, token, { method: "GET", path: info });
        expect({ status: answer.status, body: answer.body }, info).toEqual({
          status: 405,
          body: clientFault(NO_METRICS),
        });
      }
    },
  );

  it("refuses a reader every other spelling of a guarded path", async () => {
    const reader = tokenOf("demo-reader");
    const module = { enabled: true, priority: 1 };
    const spellings: Route[] = [
      { method: "PUT", path: "/v1/rating/Modules/hashmap", body: module },
      { method: "PUT", path: "/v1/rating/modules/hashmap%2F", body: module },
      { method: "PUT", path: "/v1/rating//modules/hashmap", body: module },
      { method: "PUT", path: "/v1/rating/%6Dodules/hashmap", body: module },
      { method: "PUT", path: "/v1/rating/quote/../modules/hashmap", body: module },
      { method: "GET", path: "/v1//rating/module_config/hashmap/services" },
      { method: "GET", path: "/v1/rating/module_config//hashmap/services" },
      { method: "GET", path: "/v1/rating/%6Dodule_config/hashmap/services" },
      { method: "GET", path: "/v1/rating/MODULE_CONFIG/hashmap/services" },
      { method: "GET", path: "/v1/info/../rating/module_config/hashmap/services" },
    ];
    for (const route of spellings) {
      const answer = await call(server.baseUrl, reader, route);
      expect([403, 404], `${route.method} ${route.path}: ${answer.status}`).toContain(
        answer.status,
      );
    }
  });

  it("keeps the health check, the reference and the console public", async () => {
    for (const publicPath of ["/healthz", "/v1/openapi.json", "/docs", "/"]) {
      const answer = await fetch(`${server.baseUrl}${publicPath}`);
      await answer.body?.cancel();
      expect(answer.status, publicPath).toBe(200);
    }
  });

  describe("the console's session", () => {
    it("signs a reader in with a project-scoped token, reads over RPC, cannot write", async () => {
      const session = await signIn(server.baseUrl, {
        username: "demo-reader",
        password: SEED_PASSWORD,
        project: "demo",
        domain: "Default",
      });
      const answer = await fetch(`${server.baseUrl}/auth/session`, {
        headers: { cookie: session.cookie },
      });
      expect(answer.status).toBe(200);
      const body: any = await answer.json();
      expect(body).toMatchObject({
        strategy: "keystone",
        user: { name: "demo-reader", projectName: "demo", roles: ["reader"] },
        can: {
          writeRules: false,
          updateModules: false,
          manageAccounts: false,
          preview: true,
          readAudit: false,
          acknowledgeWarnings: false,
        },
      });
      expect(body.csrfToken).toBe(session.csrfToken);

      const list = await rpc(server.baseUrl, "hashmap.services.list", undefined, {
        headers: sessionHeaders(session),
      });
      expect(list.status, JSON.stringify(list.body)).toBe(200);
      const write = await rpc(
        server.baseUrl,
        "hashmap.services.create",
        { name: "reader-made" },
        { type: "mutation", headers: sessionHeaders(session) },
      );
      expect(write.status).toBe(403);
      expect(write.code).toBe("FORBIDDEN");
      expect(write.body.error.message).toBe(
        "Policy doesn't allow rating:module_config to be performed.",
      );

      const out = await fetch(`${server.baseUrl}/auth/logout`, {
        method: "POST",
        headers: sessionHeaders(session),
      });
      expect(out.status).toBe(204);
      expect(out.headers.get("set-cookie")).toMatch(/ratecard_session=;/);
      expect(await keystoneVerdict(session.token)).toBe(404);
      const after = await fetch(`${server.baseUrl}/auth/session`, {
        headers: { cookie: session.cookie },
      });
      expect(after.status).toBe(401);
      const rest = await call(server.baseUrl, session.token, {
        method: "POST",
        path: "/v1/rating/quote",
        body: { resources: [] },
      });
      expect(rest.status).toBe(401);
    });

    it("gives an admin the rights to write", async () => {
      const session = await signIn(server.baseUrl, {
        username: "rating-admin",
        password: SEED_PASSWORD,
        project: "admin",
        domain: "Default",
      });
      expect(session.body).toMatchObject({
        user: { name: "rating-admin", projectName: "admin" },
        can: {
          writeRules: true,
          updateModules: true,
          manageAccounts: false,
          preview: true,
          readAudit: true,
          acknowledgeWarnings: true,
        },
      });
      const made = await rpc(
        server.baseUrl,
        "hashmap.services.create",
        { name: "admin-made" },
        { type: "mutation", headers: sessionHeaders(session) },
      );
      expect(made.status, JSON.stringify(made.body)).toBe(200);
      await fetch(`${server.baseUrl}/auth/logout`, {
        method: "POST",
        headers: sessionHeaders(session),
      });
    });

    it("refuses a wrong password", async () => {
      const answer = await fetch(`${server.baseUrl}/auth/login`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ username: "demo-reader", password: "wrong", project: "demo" }),
      });
      expect(answer.status).toBe(401);
      expect(await answer.json()).toEqual(clientFault("The username or password is incorrect."));
    });
  });

  it("logs no token and no password", () => {
    const log = server.output();
    expect(log.length).toBeGreaterThan(0);
    for (const token of callers.values())
      if (token && token !== "garbage") expect(log).not.toContain(token);
    expect(log).not.toMatch(new RegExp(`\\b${SEED_PASSWORD}\\b`));
  });
});

/** CloudKitty's metrics.yml, as its collector reads it. */
const METRICS_YML = `metrics:
  cpu:
    unit: instance
    alt_name: instance
    groupby: [id, project_id]
    metadata: [flavor_name, vcpus]
  image.size:
    unit: MiB
    factor: 1/1048576
    metadata: [disk_format]
`;

describe.skipIf(!haveKeystone)(
  "AUTH_STRATEGY=keystone with a METRICS_FILE and a POLICY_FILE",
  () => {
    let server: TestServer;
    let member: string;
    let admin: string;
    let reader: string;

    beforeAll(async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ratecard-keystone-"));
      const metricsFile = path.join(dir, "metrics.yml");
      const policyFile = path.join(dir, "policy.yaml");
      fs.writeFileSync(metricsFile, METRICS_YML);
      fs.writeFileSync(
        policyFile,
        '"info:get_config": "role:admin"\n"rating:module_config": "role:reader"\n',
      );
      const [started, memberToken, adminToken, readerToken] = await Promise.all([
        startServer({
          env: { ...keystoneEnv(KEYSTONE_URL), METRICS_FILE: metricsFile, POLICY_FILE: policyFile },
        }),
        userToken("demo-member"),
        userToken("rating-admin"),
        userToken("demo-reader"),
      ]);
      server = started;
      member = memberToken.token;
      admin = adminToken.token;
      reader = readerToken.token;
    });
    afterAll(async () => {
      await server?.stop();
    });

    it.each([
      "/v1/info/metrics",
      "/v1/info/metrics/instance",
      "/v1/info/services",
      "/v1/info/services/image.size",
    ])("answers a member's GET %s", async (infoPath) => {
      const answer = await call(server.baseUrl, member, { method: "GET", path: infoPath });
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    });

    it("lets demo-reader read and write rules when the policy grants it rating:module_config", async () => {
      const made = await call(server.baseUrl, reader, {
        method: "POST",
        path: "/v1/rating/module_config/hashmap/services",
        body: { name: "granted-to-readers" },
      });
      expect(made.status, JSON.stringify(made.body)).toBe(201);
      const listed = await call(server.baseUrl, reader, {
        method: "GET",
        path: "/v1/rating/module_config/hashmap/services",
      });
      expect(listed.status).toBe(200);
      expect(JSON.stringify(listed.body)).toContain("granted-to-readers");
      // Modules keep their own rules: the file did not grant those.
      const modules = await call(server.baseUrl, reader, {
        method: "GET",
        path: "/v1/rating/modules",
      });
      expect(modules.status).toBe(403);
    });

    it("refuses the member /v1/info/config by the policy file, and lets an admin read it", async () => {
      const refused = await call(server.baseUrl, member, {
        method: "GET",
        path: "/v1/info/config",
      });
      expect({ status: refused.status, body: refused.body }).toEqual({
        status: 403,
        body: policyFault("info:get_config"),
      });
      const allowed = await call(server.baseUrl, admin, { method: "GET", path: "/v1/info/config" });
      expect(allowed.status).toBe(200);
      expect(Object.keys(allowed.body.metrics)).toEqual(["cpu", "image.size"]);
    });
  },
);

describe.skipIf(!haveKeystone)("AUTH_STRATEGY=keystone when Keystone goes away", () => {
  let keystone: KeystoneInstance;
  let server: TestServer | undefined;

  beforeAll(async () => {
    // A Keystone of its own: the one other test files share is never stopped.
    keystone = privateKeystone("auth-keystone", 5011);
    await keystone.start();
    server = await startServer({ env: keystoneEnv(keystone.url) });
  }, 600_000);
  afterAll(async () => {
    await server?.stop();
    await keystone?.stop();
  }, 120_000);

  it("answers 503 for a token it has not seen, keeps cached ones, and recovers", async () => {
    const baseUrl = server!.baseUrl;
    const services = { method: "GET", path: `${HASHMAP}/services` };
    const seen = await userToken("rating-admin", { url: keystone.url });
    const unseen = await userToken("demo-member", { url: keystone.url });
    expect((await call(baseUrl, seen.token, services)).status).toBe(200);

    await keystone.stop();
    try {
      const down = await call(baseUrl, unseen.token, services);
      expect({ status: down.status, body: down.body }).toEqual({
        status: 503,
        body: {
          faultcode: "Server",
          faultstring: "The identity service cannot be reached: try again shortly.",
          debuginfo: null,
        },
      });
      expect(down.headers.get("retry-after")).toBe("5");
      // What the cache already vouched for keeps working, as with keystonemiddleware.
      expect((await call(baseUrl, seen.token, services)).status).toBe(200);
      const login = await fetch(`${baseUrl}/auth/login`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ username: "demo-member", password: SEED_PASSWORD, project: "demo" }),
      });
      expect(login.status).toBe(503);
      await login.body?.cancel();
    } finally {
      await keystone.start();
    }
    const back = await call(baseUrl, unseen.token, services);
    expect({ status: back.status, body: back.body }).toEqual({
      status: 403,
      body: policyFault("rating:module_config"),
    });
    const quote = await call(baseUrl, unseen.token, {
      method: "POST",
      path: "/v1/rating/quote",
      body: { resources: [] },
    });
    expect(quote.status).toBe(200);
  }, 120_000);
});
