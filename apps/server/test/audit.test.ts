import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rpc } from "./support/auth.js";
import {
  createClient,
  HASHMAP,
  PYSCRIPTS,
  type ApiResponse,
  type Client,
} from "./support/client.js";
import { isPostgres, queryDatabase } from "./support/database.js";
import { seeder, UNKNOWN_ID, type Seeder } from "./support/hashmap.js";
import { startServer, type TestServer } from "./support/server.js";

// The audit trail (issue 10, point 4): one immutable event per change, in the change's own
// transaction, through REST and RPC alike; none for a refused write; served newest first, filtered
// and paged on GET /v1/ratecard/audit and RPC audit.list.

const AUDIT = "/v1/ratecard/audit";

let server: TestServer;
let api: Client;
let seed: Seeder;

beforeAll(async () => {
  server = await startServer();
  api = createClient(server.baseUrl);
  seed = seeder(api);
});
afterAll(async () => {
  await server?.stop();
});

/** Every event, newest first, read page by page. */
async function allEvents(query: Record<string, string> = {}): Promise<any[]> {
  const events: any[] = [];
  let cursor: string | null = null;
  do {
    const answer: ApiResponse<any> = await api.get(AUDIT, {
      query: { ...query, limit: "1000", ...(cursor ? { cursor } : {}) },
    });
    expect(answer.status, answer.text).toBe(200);
    events.push(...answer.body.events);
    cursor = answer.body.next;
  } while (cursor);
  return events;
}

async function newestEventId(): Promise<number> {
  const answer = await api.get(AUDIT, { query: { limit: "1" } });
  return answer.body.events[0]?.event_id ?? 0;
}

/** Runs `write` and returns the events it appended, oldest first. */
async function eventsOf(write: () => Promise<unknown>): Promise<any[]> {
  const before = await newestEventId();
  await write();
  const events = await allEvents();
  return events.filter((event) => event.event_id > before).reverse();
}

function expectOk(answer: ApiResponse<any> | { status: number }, status = 200) {
  expect(answer.status, "text" in answer ? answer.text : undefined).toBe(status);
  return answer;
}

describe("one event per change", () => {
  it("records every REST write with who, where, the request id and the object before and after", async () => {
    let created!: ApiResponse<any>;
    const [event] = await eventsOf(async () => {
      created = expectOk(
        await api.post(`${HASHMAP}/services`, { name: "audited" }),
        201,
      ) as ApiResponse<any>;
    });
    expect(event).toEqual({
      event_id: expect.any(Number),
      at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      user_id: "noauth",
      user_name: "noauth",
      project_id: null,
      address: "127.0.0.1",
      request_id: created.headers.get("x-openstack-request-id"),
      operation: "create",
      resource_type: "service",
      resource_id: created.body.service_id,
      resource_revision: 1,
      before: null,
      after: { ...created.body, revision: 1 },
      cascade: null,
    });
    expect(Date.now() - Date.parse(event.at)).toBeLessThan(60_000);
  });

  it("records each write path once, REST and RPC", async () => {
    const { serviceId, fieldId } = await seed.parents();
    const group = await seed.group();
    const mapping = await seed.mapping({ field_id: fieldId, value: "a" });
    const threshold = await seed.threshold({ service_id: serviceId, level: 1 });
    const script = (await api.post(`${PYSCRIPTS}/scripts`, { name: "audited", data: "a = 1" }))
      .body;
    const call = (procedure: string, input: unknown) =>
      rpc(server.baseUrl, procedure, input, { type: "mutation" });
    const writes: [string, () => Promise<{ status: number }>, string, string, string][] = [
      // [what, write, operation, resource type, resource id (or "" for a new one)]
      [
        "REST service create",
        () => api.post(`${HASHMAP}/services`, { name: "s2" }),
        "create",
        "service",
        "",
      ],
      [
        "RPC service create",
        () => call("hashmap.services.create", { name: "s3" }),
        "create",
        "service",
        "",
      ],
      [
        "REST field create",
        () => api.post(`${HASHMAP}/fields`, { name: "f2", service_id: serviceId }),
        "create",
        "field",
        "",
      ],
      [
        "RPC field create",
        () => call("hashmap.fields.create", { name: "f3", service_id: serviceId }),
        "create",
        "field",
        "",
      ],
      [
        "REST group create",
        () => api.post(`${HASHMAP}/groups`, { name: "g2" }),
        "create",
        "group",
        "",
      ],
      [
        "RPC group create",
        () => call("hashmap.groups.create", { name: "g3" }),
        "create",
        "group",
        "",
      ],
      [
        "REST mapping create",
        () => api.post(`${HASHMAP}/mappings`, { field_id: fieldId, value: "b", cost: 1 }),
        "create",
        "mapping",
        "",
      ],
      [
        "RPC mapping create",
        () => call("hashmap.mappings.create", { field_id: fieldId, value: "c", cost: "1" }),
        "create",
        "mapping",
        "",
      ],
      [
        "REST threshold create",
        () => api.post(`${HASHMAP}/thresholds`, { service_id: serviceId, level: 2, cost: 1 }),
        "create",
        "threshold",
        "",
      ],
      [
        "RPC threshold create",
        () => call("hashmap.thresholds.create", { service_id: serviceId, level: "3", cost: "1" }),
        "create",
        "threshold",
        "",
      ],
      [
        "REST script create",
        () => api.post(`${PYSCRIPTS}/scripts`, { name: "p2", data: "" }),
        "create",
        "script",
        "",
      ],
      [
        "RPC script create",
        () => call("pyscripts.scripts.create", { name: "p3", data: "" }),
        "create",
        "script",
        "",
      ],
      [
        "REST mapping update",
        () => api.put(`${HASHMAP}/mappings/${mapping.mapping_id}`, { value: "a", cost: 2 }),
        "update",
        "mapping",
        mapping.mapping_id,
      ],
      [
        "RPC mapping update",
        () =>
          call("hashmap.mappings.update", {
            mapping_id: mapping.mapping_id,
            value: "a",
            cost: "3",
          }),
        "update",
        "mapping",
        mapping.mapping_id,
      ],
      [
        "REST threshold update",
        () => api.put(`${HASHMAP}/thresholds/${threshold.threshold_id}`, { level: 1, cost: 2 }),
        "update",
        "threshold",
        threshold.threshold_id,
      ],
      [
        "RPC threshold update",
        () =>
          call("hashmap.thresholds.update", {
            threshold_id: threshold.threshold_id,
            level: "1",
            cost: "3",
          }),
        "update",
        "threshold",
        threshold.threshold_id,
      ],
      [
        "REST script update",
        () => api.put(`${PYSCRIPTS}/scripts/${script.script_id}`, { data: "a = 2" }),
        "update",
        "script",
        script.script_id,
      ],
      [
        "RPC script update",
        () => call("pyscripts.scripts.update", { script_id: script.script_id, data: "a = 3" }),
        "update",
        "script",
        script.script_id,
      ],
      [
        "REST module update",
        () => api.put("/v1/rating/modules/noop", { priority: 5 }),
        "update",
        "module",
        "noop",
      ],
      [
        "RPC module update",
        () => call("modules.update", { module_id: "noop", priority: 6 }),
        "update",
        "module",
        "noop",
      ],
      [
        "REST mapping delete",
        () => api.delete(`${HASHMAP}/mappings/${mapping.mapping_id}`),
        // A soft delete (docs/lifecycle.md): an update that sets `deleted`.
        "update",
        "mapping",
        mapping.mapping_id,
      ],
      [
        "RPC threshold delete",
        () => call("hashmap.thresholds.delete", { threshold_id: threshold.threshold_id }),
        // A soft delete (docs/lifecycle.md): an update that sets `deleted`.
        "update",
        "threshold",
        threshold.threshold_id,
      ],
      [
        "REST script delete",
        () => api.delete(`${PYSCRIPTS}/scripts/${script.script_id}`),
        // A soft delete (docs/lifecycle.md): an update that sets `deleted`.
        "update",
        "script",
        script.script_id,
      ],
      [
        "RPC group delete",
        () => call("hashmap.groups.delete", { group_id: group.group_id }),
        "delete",
        "group",
        group.group_id,
      ],
      [
        "REST field delete",
        () => api.delete(`${HASHMAP}/fields/${fieldId}`),
        "delete",
        "field",
        fieldId,
      ],
      [
        "RPC service delete",
        () => call("hashmap.services.delete", { service_id: serviceId }),
        "delete",
        "service",
        serviceId,
      ],
    ];
    for (const [what, write, operation, resourceType, resourceId] of writes) {
      let status = 0;
      const events = await eventsOf(async () => {
        status = (await write()).status;
      });
      expect(status, what).toBeLessThan(300);
      expect(events, what).toHaveLength(1);
      expect(events[0], what).toMatchObject({ operation, resource_type: resourceType });
      if (resourceId) expect(events[0].resource_id, what).toBe(resourceId);
      if (operation === "create") expect(events[0].before, what).toBeNull();
      if (operation === "delete") {
        expect(events[0].after, what).toBeNull();
        expect(events[0].resource_revision, what).toBeNull();
      }
      if (operation === "update") {
        expect(events[0].after.revision, what).toBe(events[0].before.revision + 1);
        expect(events[0].resource_revision, what).toBe(events[0].after.revision);
      }
    }
  });

  it("lists in a deleted parent's event what it took with it, and what a group's deletion detached", async () => {
    const { serviceId, fieldId } = await seed.parents();
    const group = await seed.group();
    const onService = await seed.mapping({ service_id: serviceId, group_id: group.group_id });
    const onField = await seed.mapping({ field_id: fieldId, value: "v" });
    const threshold = await seed.threshold({ field_id: fieldId, level: 1 });

    const [detaching] = await eventsOf(() => api.delete(`${HASHMAP}/groups/${group.group_id}`));
    expect(detaching.cascade).toEqual({
      detached: {
        mappings: [{ ...onService, group_id: null, revision: 2 }],
        thresholds: [],
      },
    });

    const [service] = await eventsOf(() => api.delete(`${HASHMAP}/services/${serviceId}`));
    expect(service).toMatchObject({ operation: "delete", resource_type: "service" });
    expect(service.cascade.deleted.fields).toEqual([
      expect.objectContaining({ field_id: fieldId, service_id: serviceId }),
    ]);
    expect(service.cascade.deleted.mappings.map((m: any) => m.mapping_id).sort()).toEqual(
      [onService.mapping_id, onField.mapping_id].sort(),
    );
    expect(service.cascade.deleted.thresholds).toEqual([{ ...threshold, revision: 1 }]);

    const recursiveGroup = await seed.group();
    const { serviceId: other } = await seed.parents();
    const grouped = await seed.mapping({ service_id: other, group_id: recursiveGroup.group_id });
    const [recursive] = await eventsOf(() =>
      api.delete(`${HASHMAP}/groups/${recursiveGroup.group_id}`, { query: { recursive: "true" } }),
    );
    expect(recursive.cascade).toEqual({
      deleted: { mappings: [{ ...grouped, revision: 1 }], thresholds: [] },
    });
  });
});

describe("refused writes", () => {
  it("append nothing: 409, 400, 404 and 412", async () => {
    const { serviceId, fieldId } = await seed.parents();
    const mapping = await seed.mapping({ field_id: fieldId, value: "taken" });
    const group = await seed.group();
    await seed.mapping({ service_id: serviceId, group_id: group.group_id });
    await seed.mapping({ service_id: serviceId });
    const refused: [number, () => Promise<ApiResponse<any>>][] = [
      [409, () => api.post(`${HASHMAP}/mappings`, { field_id: fieldId, value: "taken", cost: 1 })],
      [409, () => api.post(`${HASHMAP}/groups`, { name: group.name })],
      // Detaching would make two identical service rules: nothing moves, nothing is recorded.
      [409, () => api.delete(`${HASHMAP}/groups/${group.group_id}`)],
      [400, () => api.post(`${HASHMAP}/mappings`, { service_id: UNKNOWN_ID, cost: 1 })],
      [400, () => api.post(`${HASHMAP}/fields`, { name: "x", service_id: UNKNOWN_ID })],
      [400, () => api.put(`${HASHMAP}/mappings/${mapping.mapping_id}`, { value: "y", cost: "z" })],
      [404, () => api.delete(`${HASHMAP}/mappings/${UNKNOWN_ID}`)],
      [404, () => api.put(`${PYSCRIPTS}/scripts/${UNKNOWN_ID}`, { data: "" })],
      [
        412,
        () =>
          api.put(
            `${HASHMAP}/mappings/${mapping.mapping_id}`,
            { value: "taken", cost: 5 },
            { headers: { "If-Match": `"${mapping.mapping_id}.9"` } },
          ),
      ],
      [
        412,
        () =>
          api.delete(`${HASHMAP}/services/${serviceId}`, {
            headers: { "If-Match": `"${serviceId}.9"` },
          }),
      ],
    ];
    for (const [status, write] of refused) {
      let answer!: ApiResponse<any>;
      const events = await eventsOf(async () => {
        answer = await write();
      });
      expect(answer.status, answer.text).toBe(status);
      expect(events, answer.text).toEqual([]);
    }
  });
});

describe("immutability", () => {
  it("keeps events unchanged after later changes", async () => {
    const { serviceId } = await seed.parents();
    const mapping = await seed.mapping({ service_id: serviceId });
    const earlier = await allEvents();
    await api.put(`${HASHMAP}/mappings/${mapping.mapping_id}`, { cost: 7 });
    await api.delete(`${HASHMAP}/services/${serviceId}`);
    const later = await allEvents();
    expect(later.slice(later.length - earlier.length)).toEqual(earlier);
    expect(later.length).toBe(earlier.length + 2);
  });

  it("the database refuses UPDATE and DELETE on the events table", () => {
    const count = queryDatabase(server.databasePath, `SELECT count(*) FROM "audit_events"`);
    expect(Number(count)).toBeGreaterThan(0);
    expect(() =>
      queryDatabase(server.databasePath, `UPDATE "audit_events" SET "user_name" = 'forged'`),
    ).toThrow(/immutable/);
    expect(() => queryDatabase(server.databasePath, `DELETE FROM "audit_events"`)).toThrow(
      /immutable/,
    );
    expect(queryDatabase(server.databasePath, `SELECT count(*) FROM "audit_events"`)).toBe(count);
    expect(
      queryDatabase(
        server.databasePath,
        `SELECT count(*) FROM "audit_events" WHERE "user_name" = 'forged'`,
      ),
    ).toBe("0");
  });
});

describe("reading the trail", () => {
  it("filters by resource, operation, user and time, newest first", async () => {
    const { serviceId } = await seed.parents();
    const mapping = await seed.mapping({ service_id: serviceId });
    const start = new Date().toISOString();
    await api.put(`${HASHMAP}/mappings/${mapping.mapping_id}`, { cost: 2 });
    await api.put(`${HASHMAP}/mappings/${mapping.mapping_id}`, { cost: 3 });
    const history = await allEvents({ resource_type: "mapping", resource_id: mapping.mapping_id });
    expect(history.map((event) => [event.operation, event.resource_revision])).toEqual([
      ["update", 3],
      ["update", 2],
      ["create", 1],
    ]);
    const updates = await allEvents({ resource_id: mapping.mapping_id, operation: "update" });
    expect(updates).toHaveLength(2);
    expect(await allEvents({ resource_id: mapping.mapping_id, since: start })).toEqual(updates);
    expect(await allEvents({ resource_id: mapping.mapping_id, until: start })).toEqual([
      history[2],
    ]);
    expect(await allEvents({ resource_id: mapping.mapping_id, user_id: "noauth" })).toEqual(
      history,
    );
    expect(await allEvents({ resource_id: mapping.mapping_id, user_id: "someone" })).toEqual([]);
    const overRpc = await rpc(server.baseUrl, "audit.list", {
      resource_id: mapping.mapping_id,
      limit: 2,
    });
    expect(overRpc.data.events).toEqual(history.slice(0, 2));
  });

  it("pages with limit and cursor, and no page shifts when events are appended meanwhile", async () => {
    const whole = await allEvents();
    expect(whole.length).toBeGreaterThan(10);
    const pages: any[] = [];
    let cursor: string | null = null;
    let first = true;
    do {
      const answer: ApiResponse<any> = await api.get(AUDIT, {
        query: { limit: "4", ...(cursor ? { cursor } : {}) },
      });
      expect(answer.body.events.length).toBeLessThanOrEqual(4);
      pages.push(...answer.body.events);
      cursor = answer.body.next;
      if (first) {
        first = false;
        await seed.group();
      }
    } while (cursor);
    expect(pages).toEqual(whole);
    const ids = whole.map((event) => event.event_id);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
  });

  it("refuses bad filters with 400 in the fault shape", async () => {
    const badQueries: Record<string, string>[] = [
      { limit: "0" },
      { limit: "1001" },
      { limit: "x" },
      { cursor: "abc" },
      { since: "yesterday" },
      { resource_type: "planet" },
      { operation: "rename" },
      { unknown: "1" },
    ];
    for (const query of badQueries) {
      const answer = await api.get(AUDIT, { query });
      expect(answer.status, JSON.stringify(query)).toBe(400);
      expect(answer.body.faultcode).toBe("Client");
    }
  });
});

describe("concurrent writers", () => {
  it("keep a consistent order: each event's before is the previous event's after", async () => {
    const { serviceId } = await seed.parents();
    const mapping = await seed.mapping({ service_id: serviceId });
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, n) =>
        api.put(`${HASHMAP}/mappings/${mapping.mapping_id}`, { cost: n + 10 }),
      ),
    );
    for (const answer of answers) expect(answer.status, answer.text).toBe(200);
    const chain = (await allEvents({ resource_id: mapping.mapping_id })).reverse();
    expect(chain).toHaveLength(13);
    for (let i = 1; i < chain.length; i++) {
      expect(chain[i].before).toEqual(chain[i - 1].after);
      expect(chain[i].resource_revision).toBe(i + 1);
      expect(chain[i].event_id).toBeGreaterThan(chain[i - 1].event_id);
    }
    const final = await api.get(`${HASHMAP}/mappings/${mapping.mapping_id}`);
    expect({ ...final.body, revision: 13 }).toEqual(chain[12].after);
  });

  it("records concurrent creates once each (on SQLite in the rules' creation order)", async () => {
    const { fieldId } = await seed.parents();
    const before = await newestEventId();
    const created = await Promise.all(
      Array.from({ length: 20 }, (_, n) =>
        api.post(`${HASHMAP}/mappings`, { field_id: fieldId, value: `v${n}`, cost: 1 }),
      ),
    );
    for (const answer of created) expect(answer.status).toBe(201);
    const events = (await allEvents()).filter((event) => event.event_id > before).reverse();
    expect(events.map((event) => event.resource_id).sort()).toEqual(
      created.map((answer) => answer.body.mapping_id).sort(),
    );
    // SQLite's writes are serial. On PostgreSQL a rule's sequence number is taken at its insert
    // and its event's at its commit, so two concurrent creates may be listed in the other order.
    if (isPostgres(server.databasePath)) return;
    const listed = await api.get(`${HASHMAP}/mappings`, { query: { field_id: fieldId } });
    expect(events.map((event) => event.resource_id)).toEqual(
      listed.body.mappings.map((m: any) => m.mapping_id),
    );
  });
});
