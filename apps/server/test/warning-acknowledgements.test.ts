import { beforeAll, describe, expect, it } from "vitest";
import { localAccountsServer, rpc, type Session, sessionHeaders } from "./support/auth.js";
import { createClient, HASHMAP, type Client } from "./support/client.js";
import { uniqueName } from "./support/hashmap.js";

// Acknowledged warnings (issue 11): an admin marks a rule-set warning as intended with a note; the
// warnings answer carries it until a rule involved changes, when the warning is open again; the
// acknowledgement can be withdrawn; each step is in the audit trail; a reader may read, not
// acknowledge. All over real HTTP, with real local accounts.

const AUDIT = "/v1/ratecard/audit";

const local = localAccountsServer("ratecard-warning-acknowledgements-");
let api: Client;
beforeAll(() => {
  api = createClient(local.baseUrl);
});

const asAdmin = () => ({ headers: { "X-Auth-Token": local.admin.token } });

async function create(collection: string, body: Record<string, unknown>): Promise<any> {
  const answer = await api.post(`${HASHMAP}/${collection}`, body, asAdmin());
  expect(answer.status, answer.text).toBe(201);
  return answer.body;
}

/** A service whose tenant acme has its own flat service mapping: a tenant override. */
async function seedTenantOverride() {
  const service = await create("services", { name: uniqueName("volume") });
  const global = await create("mappings", { service_id: service.service_id, cost: "1" });
  const acme = await create("mappings", {
    service_id: service.service_id,
    cost: "2",
    tenant_id: "acme",
  });
  return { serviceId: service.service_id as string, global, acme };
}

async function warningsOf(serviceId: string, session: Session = local.admin): Promise<any[]> {
  const answer = await rpc(
    local.baseUrl,
    "hashmap.warnings",
    { service_id: serviceId },
    { headers: sessionHeaders(session) },
  );
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return answer.data.warnings;
}

async function overrideWarning(serviceId: string): Promise<any> {
  const warnings = await warningsOf(serviceId);
  const warning = warnings.find((candidate) => candidate.code === "tenant-overrides-global");
  expect(warning, JSON.stringify(warnings)).toBeDefined();
  return warning;
}

const acknowledge = (input: unknown, session: Session = local.admin) =>
  rpc(local.baseUrl, "warnings.acknowledge", input, {
    type: "mutation",
    headers: sessionHeaders(session),
  });

const withdraw = (warningKey: string, session: Session = local.admin) =>
  rpc(
    local.baseUrl,
    "warnings.withdraw",
    { warning_key: warningKey },
    { type: "mutation", headers: sessionHeaders(session) },
  );

async function warningEvents(warningKey: string): Promise<any[]> {
  const answer = await api.get(AUDIT, {
    query: { resource_type: "warning", resource_id: warningKey },
    ...asAdmin(),
  });
  expect(answer.status, answer.text).toBe(200);
  return answer.body.events;
}

describe("acknowledging a warning", () => {
  it("keeps it acknowledged with the note, who and when, until a rule involved changes", async () => {
    const { serviceId, acme } = await seedTenantOverride();
    const open = await overrideWarning(serviceId);
    expect(open).toMatchObject({
      warning_key: expect.stringMatching(/^[0-9a-f]{64}$/),
      fingerprint: expect.any(String),
      acknowledgement: null,
      rule_ids: [acme.mapping_id, expect.any(String)],
    });

    const note = "acme negotiated its own volume price (contract 2026-17)";
    const acknowledged = await acknowledge({
      warning_key: open.warning_key,
      fingerprint: open.fingerprint,
      note,
    });
    expect(acknowledged.status, JSON.stringify(acknowledged.body)).toBe(200);
    expect(acknowledged.data.acknowledgement).toEqual({
      note,
      user_id: expect.any(String),
      user_name: "admin",
      at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      revision: 1,
      reopened: false,
    });

    const read = await overrideWarning(serviceId);
    expect(read.warning_key).toBe(open.warning_key);
    expect(read.acknowledgement).toMatchObject({ note, user_name: "admin", reopened: false });
    // A reader sees it too.
    const seenByReader = (await warningsOf(serviceId, local.reader)).find(
      (warning) => warning.warning_key === open.warning_key,
    );
    expect(seenByReader.acknowledgement).toMatchObject({ note, reopened: false });

    const [event] = await warningEvents(open.warning_key);
    expect(event).toMatchObject({
      operation: "create",
      resource_type: "warning",
      resource_id: open.warning_key,
      user_name: "admin",
      before: null,
      after: {
        warning_key: open.warning_key,
        code: "tenant-overrides-global",
        note,
        service_id: serviceId,
        tenant_id: "acme",
        rule_ids: open.rule_ids,
        revision: 1,
      },
    });

    // The tenant's price changes: what was accepted is no longer what applies.
    const changed = await api.put(
      `${HASHMAP}/mappings/${acme.mapping_id}`,
      { cost: 3, tenant_id: "acme" },
      asAdmin(),
    );
    expect(changed.status, changed.text).toBe(200);
    const reopened = await overrideWarning(serviceId);
    expect(reopened.warning_key).toBe(open.warning_key);
    expect(reopened.fingerprint).not.toBe(open.fingerprint);
    expect(reopened.acknowledgement).toMatchObject({ note, reopened: true });

    // Acknowledging it again renews it (an update in the trail).
    const renewed = await acknowledge({
      warning_key: reopened.warning_key,
      fingerprint: reopened.fingerprint,
      note: `${note}; new price 3`,
    });
    expect(renewed.status, JSON.stringify(renewed.body)).toBe(200);
    expect(renewed.data.acknowledgement).toMatchObject({ revision: 2, reopened: false });
    expect((await warningEvents(open.warning_key))[0]).toMatchObject({
      operation: "update",
      before: { note, revision: 1 },
      after: { note: `${note}; new price 3`, revision: 2 },
    });
  });

  it("refuses a fingerprint the rules have moved past, an unknown warning and an empty note", async () => {
    const { serviceId, acme } = await seedTenantOverride();
    const open = await overrideWarning(serviceId);
    const changed = await api.put(
      `${HASHMAP}/mappings/${acme.mapping_id}`,
      { cost: 5, tenant_id: "acme" },
      asAdmin(),
    );
    expect(changed.status, changed.text).toBe(200);

    const stale = await acknowledge({
      warning_key: open.warning_key,
      fingerprint: open.fingerprint,
      note: "seen",
    });
    expect(stale.status).toBe(412);
    expect(stale.code).toBe("PRECONDITION_FAILED");

    const unknown = await acknowledge({
      warning_key: "0".repeat(64),
      fingerprint: open.fingerprint,
      note: "seen",
    });
    expect(unknown.status).toBe(404);

    const current = await overrideWarning(serviceId);
    const empty = await acknowledge({
      warning_key: current.warning_key,
      fingerprint: current.fingerprint,
      note: "   ",
    });
    expect(empty.status).toBe(400);
    expect((await overrideWarning(serviceId)).acknowledgement).toBeNull();
    expect(await warningEvents(open.warning_key)).toEqual([]);
  });
});

describe("withdrawing an acknowledgement", () => {
  it("opens the warning again and records the withdrawal", async () => {
    const { serviceId } = await seedTenantOverride();
    const open = await overrideWarning(serviceId);
    const acknowledged = await acknowledge({
      warning_key: open.warning_key,
      fingerprint: open.fingerprint,
      note: "intended",
    });
    expect(acknowledged.status, JSON.stringify(acknowledged.body)).toBe(200);

    const withdrawn = await withdraw(open.warning_key);
    expect(withdrawn.status, JSON.stringify(withdrawn.body)).toBe(200);
    expect((await overrideWarning(serviceId)).acknowledgement).toBeNull();
    expect((await warningEvents(open.warning_key))[0]).toMatchObject({
      operation: "delete",
      user_name: "admin",
      before: { note: "intended", revision: 1 },
      after: null,
    });
    expect((await withdraw(open.warning_key)).status).toBe(404);
  });
});

describe("ratecard:acknowledge_warnings", () => {
  it("refuses a reader's acknowledgement and withdrawal with a 403, and records nothing", async () => {
    const { serviceId } = await seedTenantOverride();
    const open = await overrideWarning(serviceId);
    const refused = await acknowledge(
      { warning_key: open.warning_key, fingerprint: open.fingerprint, note: "mine" },
      local.reader,
    );
    expect(refused.status).toBe(403);
    expect(refused.code).toBe("FORBIDDEN");
    expect(refused.body.error.message).toMatch(/ratecard:acknowledge_warnings/);
    expect((await withdraw(open.warning_key, local.reader)).status).toBe(403);
    expect((await overrideWarning(serviceId)).acknowledgement).toBeNull();
    expect(await warningEvents(open.warning_key)).toEqual([]);
  });
});

describe("REST: /v1/ratecard/warnings/<key>/acknowledgement", () => {
  const path = (key: string) => `/v1/ratecard/warnings/${key}/acknowledgement`;
  const asReader = () => ({ headers: { "X-Auth-Token": local.reader.token } });

  it("acknowledges with PUT, shows it in GET .../hashmap/warnings and withdraws with DELETE", async () => {
    const { serviceId } = await seedTenantOverride();
    const listed = await api.get(`${HASHMAP}/warnings`, {
      query: { service_id: serviceId },
      ...asAdmin(),
    });
    expect(listed.status, listed.text).toBe(200);
    const open = listed.body.warnings.find(
      (warning: any) => warning.code === "tenant-overrides-global",
    );
    expect(open.acknowledgement).toBeNull();

    const refused = await api.put(
      path(open.warning_key),
      { fingerprint: open.fingerprint, note: "mine" },
      asReader(),
    );
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({
      faultcode: "Client",
      faultstring: "Policy doesn't allow ratecard:acknowledge_warnings to be performed.",
      debuginfo: null,
    });
    const unknownAttribute = await api.put(
      path(open.warning_key),
      { fingerprint: open.fingerprint, note: "intended", colour: "red" },
      asAdmin(),
    );
    expect(unknownAttribute.status).toBe(400);
    expect(unknownAttribute.body.faultcode).toBe("Client");

    const acknowledged = await api.put(
      path(open.warning_key),
      { fingerprint: open.fingerprint, note: "intended" },
      asAdmin(),
    );
    expect(acknowledged.status, acknowledged.text).toBe(200);
    expect(acknowledged.body).toMatchObject({
      warning_key: open.warning_key,
      acknowledgement: { note: "intended", user_name: "admin", reopened: false },
    });
    const reread = await api.get(`${HASHMAP}/warnings`, {
      query: { service_id: serviceId },
      ...asAdmin(),
    });
    expect(
      reread.body.warnings.find((warning: any) => warning.warning_key === open.warning_key)
        .acknowledgement,
    ).toMatchObject({ note: "intended", reopened: false });

    expect((await api.delete(path(open.warning_key), asReader())).status).toBe(403);
    const withdrawn = await api.delete(path(open.warning_key), asAdmin());
    expect(withdrawn.status, withdrawn.text).toBe(204);
    expect((await api.delete(path(open.warning_key), asAdmin())).status).toBe(404);
    expect((await warningEvents(open.warning_key)).map((event) => event.operation)).toEqual([
      "delete",
      "create",
    ]);
  });
});
