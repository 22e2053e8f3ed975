import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { localAccountsServer, rpc, sessionHeaders } from "./support/auth.js";
import type { ApiResponse } from "./support/client.js";
import { queryDatabase } from "./support/database.js";
import { expectFault, UNKNOWN_ID } from "./support/hashmap.js";
import { cloudKittyAndRatecard, referenceCloudKitty } from "./support/cloudkitty.js";

// CloudKitty targets and import (issue 14, sections 2 and 3) over real HTTP: registration with
// write-only secrets (never in an answer, an audit event or the server's log), validation,
// probe and import against a real CloudKitty 17 (../shared/reference/cloudkitty, noauth, on a
// directory and port of this file's own), seeded with the real `cloudkitty` CLI.

const TARGETS = "/v1/ratecard/targets";
const RULESET = "/v1/ratecard/ruleset";

const cloudKitty = referenceCloudKitty({
  dir: process.env.CK_TARGETS_TEST_DIR ?? "/tmp/ck-server-targets",
  port: Number(process.env.CK_TARGETS_TEST_PORT ?? 8942),
});
const CK_URL = cloudKitty.url;
const cli = cloudKitty.cli;

const SECRET = "s3cr3t-application-credential-Zq9";
const PASSWORD = "pa55word-of-the-rating-user-Xk2";

/** Every place a secret might leak: the answer's text and headers. */
function expectNoSecret(answer: ApiResponse) {
  const all = answer.text + JSON.stringify([...answer.headers.entries()]);
  expect(all).not.toContain(SECRET);
  expect(all).not.toContain(PASSWORD);
}

describe("CloudKitty targets", () => {
  const ratecard = cloudKittyAndRatecard(cloudKitty, "ratecard-targets-");

  it("registers noauth and Keystone-shaped targets without ever answering their secrets", async () => {
    const noauth = await ratecard.api.post(TARGETS, {
      name: "local",
      mode: "import-source",
      connection: { kind: "noauth", url: `${CK_URL}/` },
    });
    expect(noauth.status, noauth.text).toBe(201);
    expect(noauth.headers.get("location")).toMatch(
      new RegExp(`${TARGETS}/${noauth.body.target_id}$`),
    );
    expect(noauth.body).toMatchObject({
      name: "local",
      mode: "import-source",
      prune: false,
      connection: { kind: "noauth", url: CK_URL },
      has_secret: false,
      last_probe: null,
      last_import: null,
      apply_in_progress: null,
    });

    const appCred = await ratecard.api.post(TARGETS, {
      name: "region-one",
      mode: "managed",
      prune: true,
      connection: {
        kind: "keystone",
        authUrl: "http://127.0.0.1:9/v3",
        region: "RegionOne",
        credential: { kind: "application-credential", id: "ac-id", secret: SECRET },
      },
    });
    expect(appCred.status, appCred.text).toBe(201);
    expectNoSecret(appCred);
    expect(appCred.body).toMatchObject({
      mode: "managed",
      prune: true,
      has_secret: true,
      connection: {
        kind: "keystone",
        auth_url: "http://127.0.0.1:9/v3",
        region: "RegionOne",
        interface: "public",
        credential: { kind: "application-credential", id: "ac-id" },
      },
    });

    const password = await ratecard.api.post(TARGETS, {
      name: "region-two",
      mode: "managed",
      connection: {
        kind: "keystone",
        authUrl: "http://127.0.0.1:9",
        interface: "internal",
        credential: {
          kind: "password",
          username: "rating",
          password: PASSWORD,
          projectName: "service",
        },
      },
    });
    expect(password.status, password.text).toBe(201);
    expectNoSecret(password);
    expect(password.body.connection.credential).toEqual({
      kind: "password",
      username: "rating",
      user_domain_name: "Default",
      project_name: "service",
      project_domain_name: "Default",
    });

    const list = await ratecard.api.get(TARGETS);
    expect(list.status).toBe(200);
    expectNoSecret(list);
    expect(list.body.targets.map((t: any) => t.name)).toEqual([
      "local",
      "region-one",
      "region-two",
    ]);
    const one = await ratecard.api.get(`${TARGETS}/${appCred.body.target_id}`);
    expect(one.status).toBe(200);
    expectNoSecret(one);

    // A PATCH leaving the secret out keeps it; the probe then uses it (Keystone is unreachable).
    const patched = await ratecard.api.request("PATCH", `${TARGETS}/${appCred.body.target_id}`, {
      body: {
        name: "region-one-b",
        connection: {
          kind: "keystone",
          authUrl: "http://127.0.0.1:9/v3",
          credential: { kind: "application-credential", id: "ac-id-2" },
        },
      },
    });
    expect(patched.status, patched.text).toBe(200);
    expectNoSecret(patched);
    expect(patched.body).toMatchObject({
      name: "region-one-b",
      has_secret: true,
      connection: { region: null, credential: { id: "ac-id-2" } },
    });
    const probe = await ratecard.api.post(`${TARGETS}/${appCred.body.target_id}/probe`, {});
    expect(probe.status, probe.text).toBe(200);
    expectNoSecret(probe);
    expect(probe.body).toMatchObject({ reachable: false, generation: "unknown" });

    // At rest: ciphertext only.
    const stored = queryDatabase(
      ratecard.server.databasePath,
      `SELECT secret FROM cloudkitty_targets WHERE id = '${appCred.body.target_id}'`,
    );
    expect(stored).toMatch(/^v1\.[\w-]+\.[\w-]+\.[\w-]+$/);
    const everything = queryDatabase(
      ratecard.server.databasePath,
      "SELECT * FROM cloudkitty_targets",
    );
    expect(everything).not.toContain(SECRET);
    expect(everything).not.toContain(PASSWORD);

    // The audit trail records targets without their secrets.
    const audit = await ratecard.api.get("/v1/ratecard/audit", {
      query: { resource_type: "target" },
    });
    expect(audit.status, audit.text).toBe(200);
    expectNoSecret(audit);
    expect(audit.text).toContain("ac-id-2");

    const gone = await ratecard.api.delete(`${TARGETS}/${password.body.target_id}`);
    expect(gone.status).toBe(204);
    expect((await ratecard.api.get(`${TARGETS}/${password.body.target_id}`)).status).toBe(404);
  });

  it("refuses bad input with a 400 fault that quotes no secret", async () => {
    const bad = async (body: unknown, pattern: RegExp) => {
      const answer = await ratecard.api.post(TARGETS, body);
      expectFault(answer, 400, pattern);
      expectNoSecret(answer);
    };
    await bad({ name: "x", mode: "import-source" }, /connection/);
    await bad({ name: "x", mode: "mirror", connection: { kind: "noauth", url: CK_URL } }, /mode/);
    await bad(
      { name: "x", mode: "managed", connection: { kind: "noauth", url: "ftp://ck" } },
      /url/,
    );
    await bad(
      {
        name: "x",
        mode: "managed",
        connection: {
          kind: "keystone",
          authUrl: "http://keystone:5000",
          credential: { kind: "application-credential", secret: SECRET },
        },
      },
      /connection\.credential\.id/,
    );
    await bad(
      {
        name: "x",
        mode: "managed",
        // The secret where the URL belongs: the message must not quote it.
        connection: { kind: "noauth", url: SECRET },
      },
      /connection\.url/,
    );
    await bad(
      {
        name: "x",
        mode: "managed",
        connection: {
          kind: "keystone",
          authUrl: "http://k",
          credential: { kind: "password", password: PASSWORD },
        },
      },
      /username/,
    );
    await bad({ name: " ", mode: "managed", connection: { kind: "noauth", url: CK_URL } }, /name/);
    const duplicate = await ratecard.api.post(TARGETS, {
      name: "local",
      mode: "managed",
      connection: { kind: "noauth", url: CK_URL },
    });
    expectFault(duplicate, 409, /already exists/);
    expect((await ratecard.api.get(`${TARGETS}/${UNKNOWN_ID}`)).status).toBe(404);
    expect((await ratecard.api.post(`${TARGETS}/${UNKNOWN_ID}/probe`, {})).status).toBe(404);
  });

  it("probes a real CloudKitty 17: reachable, noauth, pre-23, its modules; kept as the last probe", async () => {
    const list = await ratecard.api.get(TARGETS);
    const local = list.body.targets.find((t: any) => t.name === "local");
    const probe = await ratecard.api.post(`${TARGETS}/${local.target_id}/probe`, {});
    expect(probe.status, probe.text).toBe(200);
    expect(probe.body).toMatchObject({
      target_id: local.target_id,
      reachable: true,
      auth: "noauth",
      endpoint: CK_URL,
      generation: "pre-23",
    });
    expect(probe.body.modules.map((m: any) => m.module_id)).toEqual(
      expect.arrayContaining(["hashmap", "pyscripts"]),
    );
    const after = await ratecard.api.get(`${TARGETS}/${local.target_id}`);
    expect(after.body.last_probe).toMatchObject({ reachable: true, generation: "pre-23" });
  });

  it("imports a CLI-seeded CloudKitty with CloudKitty's ids, reporting the duplicate", async () => {
    const compute = (await cli("hashmap", "service", "create", "compute"))["Service ID"]!;
    const flavor = (await cli("hashmap", "field", "create", compute, "flavor"))["Field ID"]!;
    const group = (await cli("hashmap", "group", "create", "instance_uptime"))["Group ID"]!;
    const mapping = (...args: string[]) =>
      cli("hashmap", "mapping", "create", ...args).then((row) => row["Mapping ID"]!);
    const small = await mapping("--field-id", flavor, "--value", "m1.small", "-g", group, "0.5");
    const tenant = await mapping(
      "--field-id",
      flavor,
      "--value",
      "m1.small",
      "-p",
      "tenant-a",
      "2",
    );
    const rate = await mapping("--field-id", flavor, "--value", "m1.large", "-t", "rate", "3");
    const dup = [
      await mapping("--field-id", flavor, "--value", "m1.tiny", "1"),
      await mapping("--field-id", flavor, "--value", "m1.tiny", "1"),
    ];
    const base = await mapping("-s", compute, "1.25");
    const threshold = (await cli("hashmap", "threshold", "create", "-s", compute, "10", "0.5"))[
      "Threshold ID"
    ]!;
    const pyscript = (await cli("pyscript", "create", "discount", "data = 1\n"))["Script ID"]!;

    const local = (await ratecard.api.get(TARGETS)).body.targets.find(
      (t: any) => t.name === "local",
    );
    const imported = await ratecard.api.post(`${TARGETS}/${local.target_id}/import`, {});
    expect(imported.status, imported.text).toBe(200);
    expect(imported.body.merge).toBe(false);
    expect(imported.body.report.duplicates).toEqual([
      expect.objectContaining({ kind: "mapping", parent: "compute/flavor", key: "m1.tiny" }),
    ]);
    const duplicate = imported.body.report.duplicates[0];
    expect([duplicate.kept.id, duplicate.dropped[0].id].sort()).toEqual([...dup].sort());
    expect(imported.body.report.counts).toMatchObject({
      groups: 1,
      services: 1,
      fields: 1,
      mappings: 5,
      thresholds: 1,
      scripts: 1,
    });

    const exported = await ratecard.api.get(RULESET);
    expect(exported.status).toBe(200);
    const document = exported.body;
    expect(document.groups).toEqual([{ id: group, name: "instance_uptime" }]);
    expect(document.services.map((s: any) => s.id)).toEqual([compute]);
    const service = document.services[0];
    expect(service.mappings.map((m: any) => [m.id, m.cost])).toEqual([[base, "1.25"]]);
    expect(service.thresholds.map((t: any) => [t.id, t.level])).toEqual([[threshold, "10"]]);
    expect(service.fields.map((f: any) => f.id)).toEqual([flavor]);
    expect(service.fields[0].mappings.map((m: any) => m.id).sort()).toEqual(
      [small, tenant, rate, duplicate.kept.id].sort(),
    );
    expect(document.scripts.map((s: any) => [s.id, s.name])).toEqual([[pyscript, "discount"]]);
    // Through CloudKitty's own REST paths too.
    const byRest = await ratecard.api.get(`/v1/rating/module_config/hashmap/mappings/${small}`);
    expect(byRest.status).toBe(200);
    expect(byRest.body).toMatchObject({ field_id: flavor, group_id: group, value: "m1.small" });

    // The target's mode is kept, and the import recorded on it.
    const after = await ratecard.api.get(`${TARGETS}/${local.target_id}`);
    expect(after.body).toMatchObject({
      mode: "import-source",
      last_import: { merge: false, duplicates: 1, counts: { mappings: 5 } },
    });

    // A second import into a Ratecard that has rules is refused unless merged ...
    const again = await ratecard.api.post(`${TARGETS}/${local.target_id}/import`, {});
    expectFault(again, 409, /merge/);
    // ... and a merge of the same rules adds nothing and changes nothing.
    const merged = await ratecard.api.post(`${TARGETS}/${local.target_id}/import`, { merge: true });
    expect(merged.status, merged.text).toBe(200);
    expect(merged.body.conflicts).toEqual([]);
    expect(merged.body.revision).toBe(merged.body.planned_revision);
    const unchanged = await ratecard.api.get(RULESET);
    expect(unchanged.body.services).toEqual(document.services);
  });

  it("keeps secrets out of the server's log", () => {
    const log = ratecard.server.output();
    expect(log.length).toBeGreaterThan(0);
    expect(log).not.toContain(SECRET);
    expect(log).not.toContain(PASSWORD);
  });

  it("generated the target key once into the data directory, mode 0600", () => {
    const file = path.join(ratecard.dataDir, "target-secret-key");
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(Buffer.from(fs.readFileSync(file, "utf8").trim(), "base64")).toHaveLength(32);
  });
});

describe("CloudKitty targets: policy", () => {
  const local = localAccountsServer("ratecard-targets-");

  it("lets only admins manage targets (ratecard:manage_targets), over REST and RPC", async () => {
    const { admin, reader } = local;
    const asReader = await rpc(local.baseUrl, "targets.list", undefined, {
      headers: sessionHeaders(reader),
    });
    expect(asReader.code).toBe("FORBIDDEN");
    const asAdmin = await rpc(
      local.baseUrl,
      "targets.create",
      {
        name: "ck",
        mode: "import-source",
        connection: { kind: "noauth", url: "http://127.0.0.1:9" },
      },
      { type: "mutation", headers: sessionHeaders(admin) },
    );
    expect(asAdmin.status, JSON.stringify(asAdmin.body)).toBe(200);
    const listed = await rpc(local.baseUrl, "targets.list", undefined, {
      headers: sessionHeaders(admin),
    });
    expect(listed.data.targets.map((t: any) => t.name)).toEqual(["ck"]);
  });
});
