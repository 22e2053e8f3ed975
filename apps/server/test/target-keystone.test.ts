import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCliWith, type Cli } from "./support/cli.js";
import { createClient, HASHMAP, type ApiResponse, type Client } from "./support/client.js";
import { queryDatabase } from "./support/database.js";
import {
  applicationCredential,
  cloudKittyBehindKeystone,
  KEYSTONE_URL,
  keystoneRest,
  SEED_PASSWORD,
  userToken,
  type ApplicationCredential,
} from "./support/keystone.js";
import {
  keystoneCliConnection,
  leaseCatalog,
  OPENSTACK_START_TIMEOUT_MS,
  startOpenStack,
  type CatalogLease,
} from "./support/openstack.js";
import { startServer, type TestServer } from "./support/server.js";

// CloudKitty targets behind Keystone (issue 14): Ratecard authenticates to the real Keystone of
// ../shared/reference/openstack with a password or an application credential, finds the `rating`
// endpoint in the token's catalog and probes, imports, plans, applies and drift-checks the real
// CloudKitty 17 running with auth_strategy = keystone (ck-keystone-start.sh, on a directory of
// this file's own). Keystone has one catalog: this file holds its lock for its whole run and points
// its `rating` service at that CloudKitty (leaseCatalog); the next test to lease it re-points it.
// Secrets (a password, an application credential's secret, a wrong password) must never show in
// an answer, the audit trail, the run history or the server's output.

const cloudKitty = cloudKittyBehindKeystone({
  dir: process.env.CK_KEYSTONE_TEST_DIR ?? "/tmp/ck-ks-server-targets",
  port: Number(process.env.CK_KEYSTONE_TEST_PORT ?? 8897),
});
const CK_URL = cloudKitty.url;

const TARGETS = "/v1/ratecard/targets";
const RULESET = "/v1/ratecard/ruleset";

/** A Keystone user of this file's own: its password is distinctive, so a leak can be grepped. */
const BRIDGE_USER = "ratecard-bridge-test";
const BRIDGE_PASSWORD = `bridge-pw-${Math.random().toString(36).slice(2)}-Kq7`;
const WRONG_PASSWORD = `wrong-pw-${Math.random().toString(36).slice(2)}-Zt4`;

const keystone = keystoneRest();

/** Creates (or resets) BRIDGE_USER with the admin role on project admin, as rating-admin has. */
async function createBridgeUser(): Promise<string> {
  const admin = (await userToken("admin")).token;
  const existing = await keystone(admin, "GET", `/v3/users?name=${BRIDGE_USER}`);
  let userId: string | undefined = existing.body.users[0]?.id;
  if (userId) {
    const reset = await keystone(admin, "PATCH", `/v3/users/${userId}`, {
      user: { password: BRIDGE_PASSWORD, enabled: true },
    });
    expect(reset.status).toBe(200);
  } else {
    const created = await keystone(admin, "POST", "/v3/users", {
      user: { name: BRIDGE_USER, domain_id: "default", password: BRIDGE_PASSWORD },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    userId = created.body.user.id as string;
  }
  const project = (await keystone(admin, "GET", "/v3/projects?name=admin")).body.projects[0].id;
  const role = (await keystone(admin, "GET", "/v3/roles?name=admin")).body.roles[0].id;
  const grant = await keystone(
    admin,
    "PUT",
    `/v3/projects/${project}/users/${userId}/roles/${role}`,
  );
  expect(grant.status).toBe(204);
  return userId;
}

async function deleteBridgeUser(userId: string): Promise<void> {
  const admin = (await userToken("admin")).token;
  await keystone(admin, "DELETE", `/v3/users/${userId}`);
}

/** CloudKitty's hashmap as CloudKitty itself says, through Keystone with a rating-admin token. */
async function ckGet(pathname: string, query: Record<string, string> = {}): Promise<any> {
  const token = (await userToken("rating-admin")).token;
  const url = new URL(`${HASHMAP}${pathname}`, CK_URL);
  for (const [key, value] of Object.entries(query)) url.searchParams.set(key, value);
  const response = await fetch(url, { headers: { "X-Auth-Token": token } });
  expect(response.status, pathname).toBe(200);
  return response.json();
}

const changing = (counts: Record<string, number>) =>
  counts.create! + counts.update! + counts.replace! + counts.delete! + counts.module!;

describe("CloudKitty targets behind Keystone", () => {
  let server: TestServer;
  let api: Client;
  let catalog: CatalogLease | undefined;
  let credential: ApplicationCredential | undefined;
  let bridgeUserId: string | undefined;
  let cli: Cli;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "ratecard-target-keystone-"));
  const answers: ApiResponse[] = [];
  const timings: Record<string, number> = {};

  /** Every answer is kept, to check that no secret ever shows in one. */
  const call = async (method: string, pathname: string, body?: unknown) => {
    const answer = await api.request(method, pathname, body === undefined ? {} : { body });
    answers.push(answer);
    return answer;
  };
  const post = (pathname: string, body: unknown = {}) => call("POST", pathname, body);

  const secrets = () => [
    BRIDGE_PASSWORD,
    WRONG_PASSWORD,
    ...(credential ? [credential.secret] : []),
  ];
  const expectNoSecret = (text: string) => {
    for (const secret of secrets()) expect(text).not.toContain(secret);
  };

  let passwordTarget: string;
  let credentialTarget: string;

  beforeAll(
    async () => {
      let started = Date.now();
      await startOpenStack();
      timings.keystone = Date.now() - started;
      // Held until afterAll: the CLI below finds CloudKitty through the catalog.
      started = Date.now();
      catalog = await leaseCatalog(CK_URL);
      timings.catalog = Date.now() - started;
      started = Date.now();
      // Installs Debian's CloudKitty the first time (minutes); then starts it or finds it running.
      await cloudKitty.start();
      timings.cloudkitty = Date.now() - started;
      bridgeUserId = await createBridgeUser();
      credential = await applicationCredential("rating-admin");
      cli = createCliWith(keystoneCliConnection("rating-admin"));
      // debug: whatever the server would log at its most talkative must still hold no secret.
      server = await startServer({ env: { DATA_DIR: dataDir, LOG_LEVEL: "debug" } });
      api = createClient(server.baseUrl);
    },
    OPENSTACK_START_TIMEOUT_MS + 16 * 60_000,
  );

  afterAll(async () => {
    await server?.stop();
    await credential?.delete().catch(() => undefined);
    if (bridgeUserId) await deleteBridgeUser(bridgeUserId).catch(() => undefined);
    await cloudKitty.stop().catch(() => undefined);
    await catalog?.release();
    console.info(`target-keystone setup (ms): ${JSON.stringify(timings)}`);
  }, 120_000);

  it("registers a password target and an application-credential target; both probe through Keystone's catalog", async () => {
    const password = await post(TARGETS, {
      name: "keystone-password",
      mode: "managed",
      connection: {
        kind: "keystone",
        authUrl: `${KEYSTONE_URL}/v3`,
        region: "RegionOne",
        interface: "public",
        credential: {
          kind: "password",
          username: BRIDGE_USER,
          password: BRIDGE_PASSWORD,
          projectName: "admin",
        },
      },
    });
    expect(password.status, password.text).toBe(201);
    passwordTarget = password.body.target_id;

    const appCred = await post(TARGETS, {
      name: "keystone-application-credential",
      mode: "import-source",
      connection: {
        kind: "keystone",
        authUrl: KEYSTONE_URL,
        region: "RegionOne",
        interface: "internal",
        credential: {
          kind: "application-credential",
          id: credential!.id,
          secret: credential!.secret,
        },
      },
    });
    expect(appCred.status, appCred.text).toBe(201);
    credentialTarget = appCred.body.target_id;
    expect(appCred.body).toMatchObject({
      has_secret: true,
      connection: {
        kind: "keystone",
        auth_url: KEYSTONE_URL,
        region: "RegionOne",
        interface: "internal",
        credential: { kind: "application-credential", id: credential!.id },
      },
    });

    for (const id of [passwordTarget, credentialTarget]) {
      const probe = await post(`${TARGETS}/${id}/probe`);
      expect(probe.status, probe.text).toBe(200);
      expect(probe.body).toMatchObject({
        target_id: id,
        reachable: true,
        auth: "ok",
        endpoint: CK_URL,
        generation: "pre-23",
      });
      // JSON has no undefined: a probe without a problem leaves the key out.
      expect(probe.body.problem).toBeUndefined();
      expect(probe.body.modules.map((m: any) => m.module_id)).toEqual(
        expect.arrayContaining(["hashmap", "pyscripts"]),
      );
      expect(probe.body.requestIds.length).toBeGreaterThan(0);
    }
  });

  it("imports rules seeded with the cloudkitty CLI through Keystone, with CloudKitty's ids; the next plans are empty", async () => {
    const row = async (...args: string[]) => (await cli.rows(...args))[0]!;
    const service = (await row("hashmap", "service", "create", "volume.size"))[
      "Service ID"
    ] as string;
    const field = (await row("hashmap", "field", "create", service, "volume_type"))[
      "Field ID"
    ] as string;
    const group = (await row("hashmap", "group", "create", "volumes"))["Group ID"] as string;
    const mapping = async (...args: string[]) =>
      (await row("hashmap", "mapping", "create", ...args))["Mapping ID"] as string;
    const ssd = await mapping("--field-id", field, "--value", "ssd", "-g", group, "0.5");
    const hdd = await mapping("--field-id", field, "--value", "hdd", "-t", "rate", "0.25");
    const base = await mapping("-s", service, "1.5");
    const threshold = (await row("hashmap", "threshold", "create", "-s", service, "100", "0.75"))[
      "Threshold ID"
    ] as string;

    const imported = await post(`${TARGETS}/${credentialTarget}/import`);
    expect(imported.status, imported.text).toBe(200);
    expect(imported.body.report.counts).toMatchObject({
      groups: 1,
      services: 1,
      fields: 1,
      mappings: 3,
      thresholds: 1,
    });
    expect(imported.body.report.duplicates).toEqual([]);

    const document = (await call("GET", RULESET)).body;
    expect(document.groups).toEqual([{ id: group, name: "volumes" }]);
    expect(document.services.map((s: any) => [s.id, s.name])).toEqual([[service, "volume.size"]]);
    const volume = document.services[0];
    expect(volume.mappings.map((m: any) => [m.id, m.cost])).toEqual([[base, "1.5"]]);
    expect(volume.thresholds.map((t: any) => [t.id, t.level, t.cost])).toEqual([
      [threshold, "100", "0.75"],
    ]);
    expect(volume.fields.map((f: any) => [f.id, f.name])).toEqual([[field, "volume_type"]]);
    expect(
      volume.fields[0].mappings.map((m: any) => [m.id, m.value, m.type, m.cost, m.group_id]),
    ).toEqual([
      [hdd, "hdd", "rate", "0.25", null],
      [ssd, "ssd", "flat", "0.5", group],
    ]);

    for (const id of [credentialTarget, passwordTarget]) {
      const plan = await post(`${TARGETS}/${id}/plan`);
      expect(plan.status, plan.text).toBe(200);
      expect(plan.body.generation).toBe("pre-23");
      expect(changing(plan.body.counts)).toBe(0);
      expect(plan.body.operations).toEqual([]);
    }
  });

  it("plans and applies a change through Keystone; CloudKitty and its CLI read it back; drift is empty", async () => {
    const document = (await call("GET", RULESET)).body;
    const field = document.services[0].fields[0];
    const hdd = field.mappings.find((m: any) => m.value === "hdd");
    const changed = await call("PUT", `${HASHMAP}/mappings/${hdd.id}`, {
      mapping_id: hdd.id,
      field_id: field.id,
      value: "hdd",
      type: "rate",
      cost: "0.3",
    });
    expect(changed.status, changed.text).toBeLessThan(400);
    const created = await post(`${HASHMAP}/mappings`, {
      field_id: field.id,
      value: "nvme",
      type: "flat",
      cost: "2",
    });
    expect(created.status, created.text).toBe(201);

    let started = Date.now();
    const plan = await post(`${TARGETS}/${passwordTarget}/plan`);
    timings.plan = Date.now() - started;
    expect(plan.status, plan.text).toBe(200);
    expect(plan.body.operations.map((o: any) => [o.op, o.kind, o.path]).sort()).toEqual([
      ["create", "mapping", "volume.size/volume_type/mappings/nvme"],
      ["update", "mapping", "volume.size/volume_type/mappings/hdd"],
    ]);

    started = Date.now();
    const applied = await post(`${TARGETS}/${passwordTarget}/apply`, {
      plan_id: plan.body.plan_id,
    });
    timings.apply = Date.now() - started;
    expect(applied.status, applied.text).toBe(200);
    expect(applied.body).toMatchObject({ status: "ok", error: null });
    const outcome = (op: string) => applied.body.operations.find((o: any) => o.op === op);
    // CloudKitty 17 answers an update with 302 behind Keystone too.
    expect(outcome("update")).toMatchObject({ outcome: "done", status: 302 });
    expect(outcome("create")).toMatchObject({ outcome: "done", status: 201 });
    for (const operation of applied.body.operations) {
      expect(operation.request_id).toMatch(/^req-/);
    }

    // CloudKitty's own REST, with a token of its own, and its CLI through the catalog.
    const mappings = (await ckGet("/mappings", { field_id: field.id })).mappings;
    expect(mappings.map((m: any) => [m.value, m.type, Number(m.cost)]).sort()).toEqual([
      ["hdd", "rate", 0.3],
      ["nvme", "flat", 2],
      ["ssd", "flat", 0.5],
    ]);
    const nvme = outcome("create").target_id as string;
    const shown = (await cli.rows("hashmap", "mapping", "get", nvme))[0]!;
    expect(Number(shown.Cost)).toBe(2);
    expect(shown.Value).toBe("nvme");

    started = Date.now();
    const driftAnswer = await call("GET", `${TARGETS}/${passwordTarget}/drift`);
    timings.drift = Date.now() - started;
    expect(driftAnswer.status, driftAnswer.text).toBe(200);
    expect(driftAnswer.body).toMatchObject({
      target_id: passwordTarget,
      last_apply: { run_id: applied.body.run_id },
      differences: [],
    });
    // The other target reads the same CloudKitty with its application credential.
    const other = await call("GET", `${TARGETS}/${credentialTarget}/drift`);
    expect(other.status, other.text).toBe(200);
    expect(other.body.differences).toEqual([]);

    const again = await post(`${TARGETS}/${passwordTarget}/plan`);
    expect(again.status, again.text).toBe(200);
    expect(changing(again.body.counts)).toBe(0);

    const runs = await call("GET", `${TARGETS}/${passwordTarget}/runs`);
    expect(runs.status, runs.text).toBe(200);
    expect(runs.body.runs.map((r: any) => [r.kind, r.status])).toEqual([
      ["plan", "empty"],
      ["drift", "empty"],
      ["apply", "ok"],
      ["plan", "ok"],
      ["plan", "empty"],
    ]);
  });

  it("says Keystone refused a wrong password, in the probe and as a 4xx, never quoting it", async () => {
    const wrong = await post(TARGETS, {
      name: "keystone-wrong-password",
      mode: "managed",
      connection: {
        kind: "keystone",
        authUrl: `${KEYSTONE_URL}/v3`,
        credential: {
          kind: "password",
          username: "rating-admin",
          password: WRONG_PASSWORD,
          projectName: "admin",
        },
      },
    });
    expect(wrong.status, wrong.text).toBe(201);
    const id = wrong.body.target_id;

    const probe = await post(`${TARGETS}/${id}/probe`);
    expect(probe.status, probe.text).toBe(200);
    expect(probe.body).toMatchObject({
      reachable: true,
      auth: "refused",
      generation: "unknown",
    });
    expect(probe.body.endpoint).toBeUndefined();
    expect(probe.body.problem).toMatch(/Keystone refused \(401\)/);

    for (const [method, pathname] of [
      ["POST", `${TARGETS}/${id}/import`],
      ["POST", `${TARGETS}/${id}/plan`],
      ["GET", `${TARGETS}/${id}/drift`],
    ] as const) {
      const answer = await call(method, pathname, method === "POST" ? {} : undefined);
      expect(answer.status, `${method} ${pathname}: ${answer.text}`).toBeGreaterThanOrEqual(400);
      expect(answer.status, answer.text).toBeLessThan(500);
      expect(answer.body.faultstring, answer.text).toMatch(/Keystone refused \(401\)/);
    }

    // Keystone says yes, CloudKitty's policy says no (rating:list_modules is role:admin).
    const reader = await post(TARGETS, {
      name: "keystone-reader",
      mode: "import-source",
      connection: {
        kind: "keystone",
        authUrl: KEYSTONE_URL,
        credential: {
          kind: "password",
          username: "demo-reader",
          password: SEED_PASSWORD,
          projectName: "demo",
        },
      },
    });
    expect(reader.status, reader.text).toBe(201);
    const refused = await post(`${TARGETS}/${reader.body.target_id}/probe`);
    expect(refused.status, refused.text).toBe(200);
    expect(refused.body).toMatchObject({
      reachable: true,
      endpoint: CK_URL,
      generation: "unknown",
    });
    expect(refused.body.problem).toMatch(/CloudKitty refused \(403\).*rating:list_modules/);
    const notImported = await post(`${TARGETS}/${reader.body.target_id}/import`);
    expect(notImported.status, notImported.text).toBe(409);
    expect(notImported.body.faultstring).toMatch(/CloudKitty refused \(403\)/);

    // A region the catalog does not have: Keystone said yes, the catalog has no endpoint there.
    const nowhere = await post(TARGETS, {
      name: "keystone-no-region",
      mode: "import-source",
      connection: {
        kind: "keystone",
        authUrl: KEYSTONE_URL,
        region: "Nowhere",
        credential: {
          kind: "application-credential",
          id: credential!.id,
          secret: credential!.secret,
        },
      },
    });
    expect(nowhere.status, nowhere.text).toBe(201);
    const lost = await post(`${TARGETS}/${nowhere.body.target_id}/probe`);
    expect(lost.status, lost.text).toBe(200);
    expect(lost.body).toMatchObject({ auth: "ok", generation: "unknown" });
    expect(lost.body.endpoint).toBeUndefined();
    expect(lost.body.problem).toContain('no public "rating" endpoint in region Nowhere');

    // The operator sets the right password (the rest of the connection as it was): Keystone says yes.
    const fixed = await call("PATCH", `${TARGETS}/${id}`, {
      connection: {
        kind: "keystone",
        authUrl: `${KEYSTONE_URL}/v3`,
        credential: {
          kind: "password",
          username: BRIDGE_USER,
          password: BRIDGE_PASSWORD,
          projectName: "admin",
        },
      },
    });
    expect(fixed.status, fixed.text).toBe(200);
    const probed = await post(`${TARGETS}/${id}/probe`);
    expect(probed.body).toMatchObject({ auth: "ok", endpoint: CK_URL, generation: "pre-23" });
  });

  it("reports an application credential deleted in Keystone as refused; a PATCH without the secret keeps it", async () => {
    const doomed = await applicationCredential("rating-admin");
    const registered = await post(TARGETS, {
      name: "keystone-doomed-credential",
      mode: "import-source",
      connection: {
        kind: "keystone",
        authUrl: KEYSTONE_URL,
        credential: { kind: "application-credential", id: doomed.id, secret: doomed.secret },
      },
    });
    expect(registered.status, registered.text).toBe(201);
    const id = registered.body.target_id;
    // The interface changes, the secret is left out: the stored one is kept and still works.
    const patched = await call("PATCH", `${TARGETS}/${id}`, {
      connection: {
        kind: "keystone",
        authUrl: KEYSTONE_URL,
        region: "RegionOne",
        interface: "admin",
        credential: { kind: "application-credential", id: doomed.id },
      },
    });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body).toMatchObject({ has_secret: true, connection: { interface: "admin" } });
    expect((await post(`${TARGETS}/${id}/probe`)).body).toMatchObject({
      auth: "ok",
      endpoint: CK_URL,
    });

    // Keystone answers 404 "Could not find Application Credential" for it: a refusal all the same.
    await doomed.delete();
    const probe = await post(`${TARGETS}/${id}/probe`);
    expect(probe.status, probe.text).toBe(200);
    expect(probe.body).toMatchObject({ reachable: true, auth: "refused" });
    expect(probe.body.problem).toContain(
      `Keystone refused (404): Could not find Application Credential: ${doomed.id}`,
    );
    const read = await post(`${TARGETS}/${id}/import`);
    expect(read.status, read.text).toBe(409);
    expect(read.body.faultstring).toContain("Keystone refused (404)");
    for (const answer of answers) expect(answer.text).not.toContain(doomed.secret);
    expect(server.output()).not.toContain(doomed.secret);
  });

  it("never shows a secret in an answer, the audit trail, the run history, the database or the server's output", async () => {
    const auditAll = await api.get("/v1/ratecard/audit", { query: { resource_type: "target" } });
    expect(auditAll.status, auditAll.text).toBe(200);
    expect(auditAll.body.events.length).toBeGreaterThan(0);
    answers.push(auditAll);
    for (const id of [passwordTarget, credentialTarget]) {
      const runs = await call("GET", `${TARGETS}/${id}/runs`);
      for (const r of runs.body.runs) await call("GET", `${TARGETS}/${id}/runs/${r.run_id}`);
    }
    await call("GET", TARGETS);
    for (const answer of answers) {
      expectNoSecret(answer.text + JSON.stringify([...answer.headers.entries()]));
    }
    expectNoSecret(queryDatabase(server.databasePath, "SELECT * FROM cloudkitty_targets"));
    expectNoSecret(queryDatabase(server.databasePath, "SELECT * FROM cloudkitty_target_runs"));
    const output = server.output();
    expect(output.length).toBeGreaterThan(0);
    expectNoSecret(output);
  });
});
