import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rpc } from "./support/auth.js";
import { createClient, HASHMAP, type Client } from "./support/client.js";
import { expectCreated, uniqueName } from "./support/hashmap.js";
import { startServer, type TestServer } from "./support/server.js";

// The console's service, field and group pages read their warnings panel (console.warnings) and
// their History tab (audit.ofRecord) by scope on the server, instead of loading every rule of the
// record (issue 11). Over real HTTP, on SQLite, and on PostgreSQL with
// RATECARD_TEST_DATABASE=postgresql.

let server: TestServer;
let api: Client;

async function create(collection: string, body: Record<string, unknown>, force = false) {
  return expectCreated(
    await api.post(`${HASHMAP}/${collection}`, body, force ? { query: { force: "true" } } : {}),
  );
}

async function query(procedure: string, input: unknown): Promise<any> {
  const answer = await rpc(server.baseUrl, procedure, input);
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return answer.data;
}

let serviceId: string;
let fieldId: string;
let groupId: string;
let rateIds: string[];
let globalServiceMapping: any;
let tenantServiceMapping: any;

beforeAll(async () => {
  server = await startServer();
  api = createClient(server.baseUrl);
  serviceId = (await create("services", { name: uniqueName("volume") })).service_id;
  fieldId = (await create("fields", { service_id: serviceId, name: "volume_type" })).field_id;
  groupId = (await create("groups", { name: uniqueName("rates") })).group_id;
  // Seven rate mappings in a group without a flat price: one warning about all seven.
  rateIds = [];
  for (let index = 0; index < 7; index += 1) {
    const mapping = await create("mappings", {
      field_id: fieldId,
      value: `type-${index}`,
      cost: "1.5",
      type: "rate",
      group_id: groupId,
    });
    rateIds.push(mapping.mapping_id);
  }
  // A tenant's service mapping replacing the global one: a warning about service rules only.
  globalServiceMapping = await create("mappings", { service_id: serviceId, cost: "0.5" });
  tenantServiceMapping = await create(
    "mappings",
    { service_id: serviceId, cost: "0.4", tenant_id: "acme" },
    true,
  );
});

afterAll(async () => {
  await server?.stop();
});

describe("console.warnings", () => {
  it("gives a service's warnings with their first rules as rows, their count and the explorer's filters", async () => {
    const { warnings } = await query("console.warnings", { service_id: serviceId });
    const rates = warnings.find((warning: any) => warning.code === "rate-without-flat");
    expect(rates, JSON.stringify(warnings)).toBeDefined();
    expect(rates.rule_count).toBe(7);
    expect(rates.rule_ids).toHaveLength(5);
    expect(rates.rules.map((row: any) => row.id)).toEqual(rates.rule_ids);
    expect(rates.rules[0]).toMatchObject({
      kind: "mapping",
      field_id: fieldId,
      type: "rate",
      cost: expect.stringMatching(/^1\.5/),
      group_id: groupId,
    });
    expect(rates.explorer).toEqual({
      kind: "mappings",
      field_id: fieldId,
      group_id: groupId,
      no_tenant: true,
      type: "rate",
    });
    const override = warnings.find((warning: any) => warning.code === "tenant-overrides-global");
    expect(override, JSON.stringify(warnings)).toBeDefined();
    expect(override.rule_count).toBe(2);
    expect(new Set(override.rule_ids)).toEqual(
      new Set([globalServiceMapping.mapping_id, tenantServiceMapping.mapping_id]),
    );
    // The tenant's rule and the global one: no tenant filter, the default group.
    expect(override.explorer).toEqual({
      kind: "mappings",
      service_id: serviceId,
      no_group: true,
      type: "flat",
    });
  });

  it("carries the same keys, fingerprints and acknowledgements as hashmap.warnings", async () => {
    const scoped = (await query("console.warnings", { service_id: serviceId })).warnings;
    const full = (await query("hashmap.warnings", { service_id: serviceId })).warnings;
    const pick = (warning: any) => ({
      key: warning.warning_key,
      fingerprint: warning.fingerprint,
      acknowledgement: warning.acknowledgement,
    });
    expect(scoped.map(pick)).toEqual(full.map(pick));
  });

  it("keeps, for a field, only the warnings that involve one of its rules", async () => {
    const { warnings } = await query("console.warnings", { field_id: fieldId });
    expect(warnings.map((warning: any) => warning.code)).toEqual(["rate-without-flat"]);
    expect(warnings[0].rule_count).toBe(7);
  });

  it("gives a group's warnings", async () => {
    const { warnings } = await query("console.warnings", { group_id: groupId });
    expect(warnings.map((warning: any) => warning.code)).toEqual(["rate-without-flat"]);
  });

  it("answers an empty list for a scope without warnings", async () => {
    const quiet = (await create("services", { name: uniqueName("quiet") })).service_id;
    expect(await query("console.warnings", { service_id: quiet })).toEqual({ warnings: [] });
  });
});

describe("console.rules with warnings", () => {
  const rowsOf = async (input: Record<string, unknown>) =>
    (await query("console.rules", { ...input, limit: 500 })).rows as any[];

  it("names with each row the warnings that involve its rule, only when asked", async () => {
    for (const row of await rowsOf({ field_id: fieldId }))
      expect(row).not.toHaveProperty("warnings");
    const rows = await rowsOf({ field_id: fieldId, warnings: true });
    expect(rows).toHaveLength(7);
    for (const row of rows)
      expect(row.warnings).toEqual([
        {
          warning_key: expect.stringMatching(/^[0-9a-f]{64}$/),
          code: "rate-without-flat",
          service_id: serviceId,
          group_id: groupId,
          acknowledged: false,
        },
      ]);
    const quiet = await rowsOf({ group_id: groupId, kind: "threshold", warnings: true });
    expect(quiet).toEqual([]);
  });

  it("lists only the rules named by id, with their warnings", async () => {
    const named = [rateIds[0], rateIds[6], globalServiceMapping.mapping_id, "not-a-rule"];
    const answer = await query("console.rules", { ids: named, limit: 100, warnings: true });
    expect(answer.total).toBe(3);
    expect(new Set(answer.rows.map((row: any) => row.id))).toEqual(new Set(named.slice(0, 3)));
    const tooMany = await rpc(server.baseUrl, "console.rules", {
      ids: Array.from({ length: 101 }, (_, index) => `id-${index}`),
    });
    expect(tooMany.status).toBe(400);
  });

  it("says acknowledged while the acknowledgement holds, and open again once a rule changes", async () => {
    const service = { service_id: serviceId, kind: "mapping", warnings: true };
    const override = (await query("hashmap.warnings", { service_id: serviceId })).warnings.find(
      (warning: any) => warning.code === "tenant-overrides-global",
    );
    const acknowledged = await rpc(
      server.baseUrl,
      "warnings.acknowledge",
      {
        warning_key: override.warning_key,
        fingerprint: override.fingerprint,
        note: "acme's contract",
      },
      { type: "mutation" },
    );
    expect(acknowledged.status, JSON.stringify(acknowledged.body)).toBe(200);
    const before = await rowsOf(service);
    expect(before).toHaveLength(2);
    for (const row of before)
      expect(row.warnings).toEqual([
        expect.objectContaining({
          warning_key: override.warning_key,
          code: "tenant-overrides-global",
          acknowledged: true,
        }),
      ]);

    const changed = await api.put(`${HASHMAP}/mappings/${tenantServiceMapping.mapping_id}`, {
      service_id: serviceId,
      cost: "0.45",
      type: "flat",
      tenant_id: "acme",
    });
    expect(changed.status, JSON.stringify(changed.body)).toBeLessThan(300);
    for (const row of await rowsOf(service))
      expect(row.warnings).toEqual([expect.objectContaining({ acknowledged: false })]);
  });
});

describe("audit.ofRecord", () => {
  const subjects = (events: any[]) =>
    new Set(events.map((event: any) => `${event.resource_type}:${event.resource_id}`));

  async function everyEvent(input: Record<string, unknown>, limit: number): Promise<any[]> {
    const events: any[] = [];
    let cursor: string | undefined;
    for (;;) {
      const page = await query("audit.ofRecord", { ...input, limit, ...(cursor && { cursor }) });
      expect(page.events.length).toBeLessThanOrEqual(limit);
      events.push(...page.events);
      if (page.next === null) return events;
      cursor = page.next;
    }
  }

  it("gives a field's events and those of its rules, newest first, page by page", async () => {
    // A change after the creates: it is the newest event of the field's history.
    const changed = await api.put(`${HASHMAP}/mappings/${rateIds[3]}`, {
      field_id: fieldId,
      value: "type-3",
      cost: "1.75",
      type: "rate",
      group_id: groupId,
    });
    expect(changed.status, JSON.stringify(changed.body)).toBeLessThan(300);
    const first = await query("audit.ofRecord", {
      resource_type: "field",
      resource_id: fieldId,
      limit: 2,
    });
    expect(first.events[0]).toMatchObject({
      operation: "update",
      resource_type: "mapping",
      resource_id: rateIds[3],
    });
    const events = await everyEvent({ resource_type: "field", resource_id: fieldId }, 3);
    expect(events.map((event) => event.event_id)).toEqual(
      [...events.map((event) => event.event_id)].sort((left, right) => right - left),
    );
    expect(subjects(events)).toEqual(
      new Set([`field:${fieldId}`, ...rateIds.map((id) => `mapping:${id}`)]),
    );
    expect(events).toHaveLength(1 + 7 + 1);
  });

  it("gives a service's events, its fields' and its own rules', not its fields' rules", async () => {
    const events = await everyEvent({ resource_type: "service", resource_id: serviceId }, 100);
    expect(subjects(events)).toEqual(
      new Set([
        `service:${serviceId}`,
        `field:${fieldId}`,
        `mapping:${globalServiceMapping.mapping_id}`,
        `mapping:${tenantServiceMapping.mapping_id}`,
      ]),
    );
  });

  it("gives a group's events and those of the rules in it", async () => {
    const events = await everyEvent({ resource_type: "group", resource_id: groupId }, 4);
    expect(subjects(events)).toEqual(
      new Set([`group:${groupId}`, ...rateIds.map((id) => `mapping:${id}`)]),
    );
  });

  it("refuses a cursor it did not give", async () => {
    const answer = await rpc(server.baseUrl, "audit.ofRecord", {
      resource_type: "group",
      resource_id: groupId,
      cursor: "abc",
    });
    expect(answer.status).toBe(400);
  });
});
