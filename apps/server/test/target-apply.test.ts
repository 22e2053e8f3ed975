import { beforeEach, describe, expect, it } from "vitest";
import { localAccountsServer, rpc, sessionHeaders } from "./support/auth.js";
import { HASHMAP, PYSCRIPTS, type Client } from "./support/client.js";
import { UNKNOWN_ID } from "./support/hashmap.js";
import { cloudKittyAndRatecard, referenceCloudKitty } from "./support/cloudkitty.js";

// Applying Ratecard's rule set to a managed CloudKitty target (issue 14, section 4) over real
// HTTP, against a real CloudKitty 17 (../shared/reference/cloudkitty, noauth, SQLite) on a
// directory and port of this file's own; what CloudKitty holds is read back through its own REST
// API and its `cloudkitty` CLI.

const TARGETS = "/v1/ratecard/targets";

const cloudKitty = referenceCloudKitty({
  dir: process.env.CK_APPLY_TEST_DIR ?? "/tmp/ck-server-target-apply",
  port: Number(process.env.CK_APPLY_TEST_PORT ?? 8960),
});
const CK_URL = cloudKitty.url;
const cli = cloudKitty.cli;

const SECRET = "apply-test-secret-0f3e9d";

/** Decimal text without trailing zeros ("0.50000000" -> "0.5"); exact, no float in between. */
function plain(text: string): string {
  const match = /^(-?)(\d*)(?:\.(\d*))?$/.exec(text.trim());
  if (!match) throw new Error(`not a plain decimal: ${text}`);
  const whole = match[2]!.replace(/^0+(?=\d)/, "") || "0";
  const fraction = (match[3] ?? "").replace(/0+$/, "");
  return `${match[1]}${whole}${fraction ? `.${fraction}` : ""}`;
}

/**
 * A cost or level to compare: exact decimal text where a double holds it exactly, else "~" and
 * the double. The reference CloudKitty stores on SQLite, whose columns are doubles (0.00000001
 * comes back as 1.00000000000000002092E-8); on MySQL it would keep every digit.
 */
function amount(text: string): string {
  const exact = /e/i.test(text) ? null : plain(text);
  return exact !== null && String(Number(exact)) === exact ? exact : `~${Number(text)}`;
}

async function ck(pathname: string, query: Record<string, string> = {}): Promise<any> {
  const url = new URL(pathname, CK_URL);
  for (const [key, value] of Object.entries(query)) url.searchParams.set(key, value);
  const response = await fetch(url);
  expect(response.status, `${pathname} ${JSON.stringify(query)}`).toBe(200);
  return response.json();
}

/** CloudKitty's rule set by names, read through its REST API: one line per object. */
async function readCloudKitty(): Promise<string[]> {
  const lines: string[] = [];
  const groups = new Map<string, string>(
    (await ck(`${HASHMAP}/groups`)).groups.map((g: any) => [g.group_id, g.name]),
  );
  for (const name of groups.values()) lines.push(`group ${name}`);
  const rule = (kind: string, parent: string, r: any) =>
    [
      kind,
      parent,
      kind === "mapping" ? (r.value ?? "") : amount(r.level),
      r.type,
      amount(r.cost),
      r.tenant_id ?? "-",
      r.group_id ? groups.get(r.group_id) : "-",
    ].join(" ");
  for (const service of (await ck(`${HASHMAP}/services`)).services) {
    lines.push(`service ${service.name}`);
    const byService = { service_id: service.service_id };
    for (const m of (await ck(`${HASHMAP}/mappings`, byService)).mappings)
      lines.push(rule("mapping", service.name, m));
    for (const t of (await ck(`${HASHMAP}/thresholds`, byService)).thresholds)
      lines.push(rule("threshold", service.name, t));
    for (const field of (await ck(`${HASHMAP}/fields`, byService)).fields) {
      const where = `${service.name}/${field.name}`;
      lines.push(`field ${where}`);
      const byField = { field_id: field.field_id };
      for (const m of (await ck(`${HASHMAP}/mappings`, byField)).mappings)
        lines.push(rule("mapping", where, m));
      for (const t of (await ck(`${HASHMAP}/thresholds`, byField)).thresholds)
        lines.push(rule("threshold", where, t));
    }
  }
  for (const s of (await ck(`${PYSCRIPTS}/scripts`)).scripts)
    lines.push(`script ${s.name} ${JSON.stringify(s.data)}`);
  return lines.sort();
}

/** Ratecard's rule set by names, from its export, in the same lines. */
async function readRatecard(api: Client): Promise<string[]> {
  const document = (await api.get("/v1/ratecard/ruleset")).body;
  const groups = new Map<string, string>(document.groups.map((g: any) => [g.id, g.name]));
  const lines: string[] = [...groups.values()].map((name) => `group ${name}`);
  const rule = (kind: string, parent: string, r: any) =>
    [
      kind,
      parent,
      kind === "mapping" ? (r.value ?? "") : amount(r.level),
      r.type,
      amount(r.cost),
      r.tenant_id ?? "-",
      r.group_id ? groups.get(r.group_id) : "-",
    ].join(" ");
  for (const service of document.services) {
    lines.push(`service ${service.name}`);
    for (const m of service.mappings) lines.push(rule("mapping", service.name, m));
    for (const t of service.thresholds) lines.push(rule("threshold", service.name, t));
    for (const field of service.fields) {
      const where = `${service.name}/${field.name}`;
      lines.push(`field ${where}`);
      for (const m of field.mappings) lines.push(rule("mapping", where, m));
      for (const t of field.thresholds) lines.push(rule("threshold", where, t));
    }
  }
  for (const s of document.scripts) lines.push(`script ${s.name} ${JSON.stringify(s.data)}`);
  return lines.sort();
}

const brief = (operations: any[]) =>
  operations.map((o) => [o.op, o.kind, o.path]).sort((a, b) => (a.join() < b.join() ? -1 : 1));

const changing = (counts: Record<string, number>) =>
  counts.create! + counts.update! + counts.replace! + counts.delete! + counts.module!;

describe("POST /v1/ratecard/targets/{id}/apply", () => {
  const ratecard = cloudKittyAndRatecard(cloudKitty, "ratecard-target-apply-");
  const answers: string[] = [];

  /** Every answer is kept, to check that no secret ever shows. */
  const call = async (method: string, pathname: string, body?: unknown) => {
    const answer = await ratecard.api.request(method, pathname, body === undefined ? {} : { body });
    answers.push(answer.text);
    return answer;
  };
  const post = (pathname: string, body: unknown = {}) => call("POST", pathname, body);

  beforeEach(() => {
    answers.length = 0;
  });

  it("applies a rule set to an empty CloudKitty, then exactly Ratecard's changes; each next plan is empty", async () => {
    // Ratecard's rule set, through its own CloudKitty-compatible API.
    const created = async (pathname: string, body: unknown) => {
      const answer = await post(pathname, body);
      expect(answer.status, answer.text).toBe(201);
      return answer.body;
    };
    const compute = (await created(`${HASHMAP}/services`, { name: "compute" })).service_id;
    const image = (await created(`${HASHMAP}/services`, { name: "image" })).service_id;
    const flavor = (await created(`${HASHMAP}/fields`, { service_id: compute, name: "flavor" }))
      .field_id;
    const size = (await created(`${HASHMAP}/fields`, { service_id: image, name: "size" })).field_id;
    const group = (await created(`${HASHMAP}/groups`, { name: "instance_uptime" })).group_id;
    const mapping = (body: Record<string, unknown>) =>
      created(`${HASHMAP}/mappings`, { type: "flat", ...body }).then((m) => m.mapping_id);
    const small = await mapping({
      field_id: flavor,
      value: "m1.small",
      cost: "0.5",
      group_id: group,
    });
    const large = await mapping({ field_id: flavor, value: "m1.large", type: "rate", cost: "3" });
    const tenantMapping = await mapping({
      field_id: flavor,
      value: "m1.small",
      cost: "0.00000001",
      tenant_id: "7d3c0e32a0e24d3f8f4f6c5b1a2e9d10",
    });
    await mapping({ service_id: compute, cost: "1.25" });
    const threshold = (
      await created(`${HASHMAP}/thresholds`, {
        service_id: compute,
        level: "10",
        type: "flat",
        cost: "0.5",
      })
    ).threshold_id;
    await created(`${HASHMAP}/thresholds`, {
      field_id: size,
      level: "1024",
      type: "rate",
      cost: "0.0625",
      group_id: group,
    });
    await created(`${PYSCRIPTS}/scripts`, {
      name: "discount",
      data: "import decimal\n# apply test\n",
    });

    const target = await post(TARGETS, {
      name: "managed",
      mode: "managed",
      prune: true,
      push_scripts: true,
      connection: { kind: "noauth", url: CK_URL },
    });
    expect(target.status, target.text).toBe(201);
    expect(target.body).toMatchObject({ push_scripts: true, push_modules: false, prune: true });
    const id = target.body.target_id;

    const plan = await post(`${TARGETS}/${id}/plan`);
    expect(plan.status, plan.text).toBe(200);
    expect(plan.body).toMatchObject({
      generation: "pre-23",
      in_force_only: true,
      counts: { create: 12, update: 0, replace: 0, delete: 0 },
    });
    expect(plan.body.plan_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(plan.body.target_fingerprint).toMatch(/^[0-9a-f]{64}$/);
    expect(plan.body.ratecard_revision).toBe(plan.body.revision);

    const applied = await post(`${TARGETS}/${id}/apply`, { plan_id: plan.body.plan_id });
    expect(applied.status, applied.text).toBe(200);
    expect(applied.body).toMatchObject({ status: "ok", plan_id: plan.body.plan_id, error: null });
    expect(applied.body.operations).toHaveLength(12);
    for (const operation of applied.body.operations) {
      expect(operation).toMatchObject({ op: "create", outcome: "done", status: 201 });
      expect(operation.request_id).toMatch(/^req-/);
      expect(operation.target_id).toMatch(/^[0-9a-f-]{36}$/);
    }
    // Parents first: groups, services, fields, then rules, then the script.
    expect(applied.body.operations.map((o: any) => o.kind)).toEqual([
      "group",
      "service",
      "service",
      "field",
      "field",
      "mapping",
      "mapping",
      "mapping",
      "mapping",
      "threshold",
      "threshold",
      "script",
    ]);

    // What CloudKitty holds, read through its REST API, is Ratecard's rule set: costs exact where
    // CloudKitty's SQLite can hold them (a double), else equal as doubles.
    expect(await readCloudKitty()).toEqual(await readRatecard(ratecard.api));
    // ... and through its CLI. The cost was sent as the JSON string "0.00000001"; SQLite keeps
    // the double nearest to it.
    const tenantCk = applied.body.operations.find((o: any) => o.ratecard_id === tenantMapping);
    const shown = await cli("hashmap", "mapping", "get", tenantCk.target_id);
    expect(Number(shown.Cost!)).toBe(0.00000001);
    const largeCk = applied.body.operations.find((o: any) => o.ratecard_id === large);
    expect(plain((await cli("hashmap", "mapping", "get", largeCk.target_id)).Cost!)).toBe("3");
    expect(Object.values(shown)).toContain("7d3c0e32a0e24d3f8f4f6c5b1a2e9d10");

    const second = await post(`${TARGETS}/${id}/plan`);
    expect(second.status, second.text).toBe(200);
    expect(changing(second.body.counts)).toBe(0);
    expect(second.body.operations).toEqual([]);

    // Ratecard changes: a cost, a new mapping, a mapping out of its group, a threshold deleted.
    const put = async (pathname: string, body: unknown) => {
      const answer = await call("PUT", pathname, body);
      expect(answer.status, answer.text).toBeLessThan(400);
    };
    await put(`${HASHMAP}/mappings/${large}`, {
      mapping_id: large,
      field_id: flavor,
      value: "m1.large",
      type: "rate",
      cost: "3.5",
    });
    await mapping({ field_id: flavor, value: "m1.xlarge", cost: "4" });
    await put(`${HASHMAP}/mappings/${small}`, {
      mapping_id: small,
      field_id: flavor,
      value: "m1.small",
      type: "flat",
      cost: "0.5",
      group_id: null,
    });
    expect((await call("DELETE", `${HASHMAP}/thresholds/${threshold}`)).status).toBe(204);

    const changed = await post(`${TARGETS}/${id}/plan`);
    expect(changed.status, changed.text).toBe(200);
    expect(brief(changed.body.operations)).toEqual([
      ["create", "mapping", "compute/flavor/mappings/m1.xlarge"],
      ["delete", "threshold", "compute/thresholds/10"],
      ["replace", "mapping", "compute/flavor/mappings/m1.small"],
      ["update", "mapping", "compute/flavor/mappings/m1.large"],
    ]);
    const replace = changed.body.operations.find((o: any) => o.op === "replace");
    expect(replace).toMatchObject({
      ratecard_id: small,
      reason: "CloudKitty cannot take a rule out of a group",
    });
    const update = changed.body.operations.find((o: any) => o.op === "update");
    expect(update).toMatchObject({
      changes: ["cost"],
      before: { cost: "3" },
      after: { cost: "3.5" },
    });

    const again = await post(`${TARGETS}/${id}/apply`, { plan_id: changed.body.plan_id });
    expect(again.status, again.text).toBe(200);
    expect(again.body.status).toBe("ok");
    const outcome = (op: string) => again.body.operations.find((o: any) => o.op === op);
    // A replacement: the old rule deleted, then the new one created.
    expect(outcome("replace").requests.map((r: any) => [r.method, r.status])).toEqual([
      ["DELETE", 204],
      ["POST", 201],
    ]);
    // CloudKitty 17 answers an update with 302: a success, not followed.
    expect(outcome("update")).toMatchObject({ outcome: "done", status: 302 });
    expect(outcome("delete")).toMatchObject({ outcome: "done", status: 204 });

    expect(await readCloudKitty()).toEqual(await readRatecard(ratecard.api));
    const third = await post(`${TARGETS}/${id}/plan`);
    expect(changing(third.body.counts)).toBe(0);

    // The history: newest first, the apply with its document and operations.
    const runs = await call("GET", `${TARGETS}/${id}/runs`);
    expect(runs.status, runs.text).toBe(200);
    expect(runs.body.runs.map((r: any) => [r.kind, r.status])).toEqual([
      ["plan", "empty"],
      ["apply", "ok"],
      ["plan", "ok"],
      ["plan", "empty"],
      ["apply", "ok"],
      ["plan", "ok"],
    ]);
    const run = await call("GET", `${TARGETS}/${id}/runs/${again.body.run_id}`);
    expect(run.status, run.text).toBe(200);
    expect(run.body).toMatchObject({
      kind: "apply",
      status: "ok",
      plan_id: changed.body.plan_id,
      ratecard_revision: changed.body.ratecard_revision,
      target_fingerprint: changed.body.target_fingerprint,
    });
    expect(run.body.operations).toHaveLength(4);
    expect(run.body.document.services.map((s: any) => s.name)).toEqual(["compute", "image"]);

    // The audit trail names the run.
    const audit = await ratecard.api.get("/v1/ratecard/audit", {
      query: { resource_type: "target", resource_id: id },
    });
    expect(audit.status, audit.text).toBe(200);
    expect(audit.body.events.map((e: any) => e.after?.run?.run_id)).toContain(again.body.run_id);
  });

  it("refuses (409) when Ratecard's revision or the target moved since the plan, and for an import source", async () => {
    const target = await post(TARGETS, {
      name: "guarded",
      mode: "managed",
      connection: { kind: "noauth", url: CK_URL },
    });
    const id = target.body.target_id;

    // Ratecard moved.
    const plan = await post(`${TARGETS}/${id}/plan`);
    expect(plan.status, plan.text).toBe(200);
    const service = await post(`${HASHMAP}/services`, { name: "volume" });
    expect(service.status).toBe(201);
    const moved = await post(`${TARGETS}/${id}/apply`, { plan_id: plan.body.plan_id });
    expect(moved.status, moved.text).toBe(409);
    expect(moved.body.faultstring).toMatch(/Ratecard's rule set changed since plan/);

    // The target changed out of band (the CLI), after the plan.
    const fresh = await post(`${TARGETS}/${id}/plan`);
    await cli("hashmap", "group", "create", "out_of_band");
    const outOfBand = await post(`${TARGETS}/${id}/apply`, { plan_id: fresh.body.plan_id });
    expect(outOfBand.status, outOfBand.text).toBe(409);
    expect(outOfBand.body.faultstring).toMatch(/changed since plan/);

    // An import source is read only.
    const source = await post(TARGETS, {
      name: "source",
      mode: "import-source",
      connection: { kind: "noauth", url: CK_URL },
    });
    const sourcePlan = await post(`${TARGETS}/${source.body.target_id}/plan`);
    expect(sourcePlan.status, sourcePlan.text).toBe(200);
    const refused = await post(`${TARGETS}/${source.body.target_id}/apply`, {
      plan_id: sourcePlan.body.plan_id,
    });
    expect(refused.status, refused.text).toBe(409);
    expect(refused.body.faultstring).toMatch(/import source/);

    // A plan of another target, or no plan at all.
    expect(
      (await post(`${TARGETS}/${id}/apply`, { plan_id: sourcePlan.body.plan_id })).status,
    ).toBe(404);

    const runs = await call("GET", `${TARGETS}/${id}/runs?limit=10`);
    expect(runs.body.runs.map((r: any) => [r.kind, r.status])).toEqual([
      ["apply", "refused"],
      ["plan", "ok"],
      ["apply", "refused"],
      // The first test left CloudKitty holding Ratecard's rule set.
      ["plan", "empty"],
    ]);
    // Nothing was written to CloudKitty: the new service is not there.
    expect((await readCloudKitty()).filter((l) => l === "service volume")).toEqual([]);
  });

  it("never answers a target's secret", async () => {
    const keystone = await post(TARGETS, {
      name: "behind-keystone",
      mode: "managed",
      connection: {
        kind: "keystone",
        authUrl: "http://127.0.0.1:9/v3",
        credential: { kind: "application-credential", id: "app-cred", secret: SECRET },
      },
    });
    expect(keystone.status, keystone.text).toBe(201);
    const id = keystone.body.target_id;
    await post(`${TARGETS}/${id}/plan`);
    await post(`${TARGETS}/${id}/apply`, { plan_id: "00000000-0000-4000-8000-000000000000" });
    await call("GET", `${TARGETS}/${id}/runs`);
    await call("GET", TARGETS);
    for (const text of answers) expect(text).not.toContain(SECRET);
  });
});

describe("apply and runs: policy", () => {
  const local = localAccountsServer("ratecard-target-apply-");

  it("refuses a reader (ratecard:manage_targets), over RPC", async () => {
    const { admin, reader } = local;
    const calls = [
      ["targets.applyPlan", { target_id: UNKNOWN_ID, plan_id: UNKNOWN_ID }, "mutation"],
      ["targets.runs", { target_id: UNKNOWN_ID }, "query"],
      ["targets.run", { target_id: UNKNOWN_ID, run_id: UNKNOWN_ID }, "query"],
    ] as const;
    for (const [procedure, input, type] of calls) {
      const asReader = await rpc(local.baseUrl, procedure, input, {
        type,
        headers: sessionHeaders(reader),
      });
      expect(asReader.code, procedure).toBe("FORBIDDEN");
      const asAdmin = await rpc(local.baseUrl, procedure, input, {
        type,
        headers: sessionHeaders(admin),
      });
      expect(asAdmin.code, procedure).toBe("NOT_FOUND");
    }
  });
});
