import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rpc } from "./support/auth.js";
import { createClient, HASHMAP, type Client } from "./support/client.js";
import { expectCreated, uniqueName } from "./support/hashmap.js";
import { startServer, type TestServer } from "./support/server.js";

// console.rules (issue 11): the console's rule lists fetch windows of rules filtered, searched,
// sorted and counted by the database instead of every rule. Over real HTTP, on SQLite, and on
// PostgreSQL with RATECARD_TEST_DATABASE=postgresql (CI runs the suite on both).

let server: TestServer;
let api: Client;

const DAY = 86_400_000;
const moment = (ms: number) => new Date(Date.now() + ms).toISOString().replace("Z", "");

interface Seeded {
  serviceId: string;
  serviceName: string;
  fieldId: string;
  fieldName: string;
  groupId: string;
  groupName: string;
  otherGroupId: string;
  mappings: Record<string, any>;
  thresholds: Record<string, any>;
}
let seeded: Seeded;

async function create(collection: string, body: Record<string, unknown>, force = false) {
  return expectCreated(
    await api.post(`${HASHMAP}/${collection}`, body, force ? { query: { force: "true" } } : {}),
  );
}

async function window(input: Record<string, unknown>): Promise<any> {
  const answer = await rpc(server.baseUrl, "console.rules", input);
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return answer.data;
}

/** Every window of `input`, `limit` rules at a time, as a list scrolled to the end reads them. */
async function everyRow(input: Record<string, unknown>, limit = 3): Promise<any[]> {
  const rows: any[] = [];
  for (let offset = 0; ; offset += limit) {
    const answer = await window({ ...input, offset, limit });
    rows.push(...answer.rows);
    if (offset + limit >= answer.total) return rows;
  }
}

const costs = (rows: any[]) => rows.map((row) => Number(row.cost));
const ids = (rows: any[]) => rows.map((row) => row.id);

beforeAll(async () => {
  server = await startServer();
  api = createClient(server.baseUrl);
  const serviceName = uniqueName("instance");
  const service = await create("services", { name: serviceName });
  const field = await create("fields", { service_id: service.service_id, name: "flavor_id" });
  const group = await create("groups", { name: uniqueName("compute") });
  const other = await create("groups", { name: uniqueName("aardvark") });
  const f = field.field_id;
  const mappings = {
    small: await create("mappings", {
      field_id: f,
      value: "m1.small",
      cost: "10",
      group_id: group.group_id,
    }),
    large: await create("mappings", {
      field_id: f,
      value: "m1.large",
      cost: "9.5",
      group_id: group.group_id,
    }),
    tiny: await create("mappings", { field_id: f, value: "m1.tiny", cost: "100", type: "rate" }),
    acme: await create("mappings", {
      field_id: f,
      value: "m1.small",
      cost: "-1.5",
      tenant_id: "acme",
      group_id: other.group_id,
    }),
    negative: await create("mappings", { field_id: f, value: "m1.xlarge", cost: "-20" }),
    service: await create("mappings", {
      service_id: service.service_id,
      cost: "0.25",
      description: "The Base price",
      group_id: group.group_id,
    }),
    scheduled: await create("mappings", {
      field_id: f,
      value: "m2.future",
      cost: "3",
      start: moment(DAY),
    }),
    ended: await create(
      "mappings",
      { field_id: f, value: "m0.past", cost: "4", start: moment(-2 * DAY), end: moment(-DAY) },
      true,
    ),
    deleted: await create("mappings", { field_id: f, value: "m9.gone", cost: "5" }),
  };
  const deleted = await api.delete(`${HASHMAP}/mappings/${mappings.deleted.mapping_id}`);
  expect(deleted.status).toBe(204);
  const thresholds = {
    two: await create("thresholds", { service_id: service.service_id, level: "2", cost: "0.5" }),
    ten: await create("thresholds", { service_id: service.service_id, level: "10", cost: "0.05" }),
    onePointFive: await create("thresholds", {
      service_id: service.service_id,
      level: "1.5",
      cost: "1000",
      group_id: group.group_id,
    }),
  };
  seeded = {
    serviceId: service.service_id,
    serviceName,
    fieldId: f,
    fieldName: "flavor_id",
    groupId: group.group_id,
    groupName: group.name,
    otherGroupId: other.group_id,
    mappings,
    thresholds,
  };
});
afterAll(async () => {
  await server?.stop();
});

describe("console.rules", () => {
  it("counts the rules not deleted and gives one window with the names a list shows", async () => {
    const answer = await window({ limit: 500 });
    expect(answer.total).toBe(11);
    expect(answer.offset).toBe(0);
    expect(answer.rows).toHaveLength(11);
    // Without a sort: mappings, then thresholds, each in creation order.
    expect(answer.rows.map((row: any) => row.kind)).toEqual([
      ...Array(8).fill("mapping"),
      ...Array(3).fill("threshold"),
    ]);
    const small = answer.rows[0];
    expect(small).toMatchObject({
      kind: "mapping",
      id: seeded.mappings.small.mapping_id,
      value: "m1.small",
      level: null,
      type: "flat",
      service_id: null,
      field_id: seeded.fieldId,
      group_id: seeded.groupId,
      tenant_id: null,
      service_name: seeded.serviceName,
      field_name: "flavor_id",
      group_name: seeded.groupName,
      revision: 1,
      deleted: null,
    });
    expect(Number(small.cost)).toBe(10);
    expect(small.start).toBe(seeded.mappings.small.start);
    const threshold = answer.rows.find((row: any) => row.id === seeded.thresholds.two.threshold_id);
    expect(threshold).toMatchObject({
      kind: "threshold",
      value: null,
      service_id: seeded.serviceId,
      service_name: seeded.serviceName,
      field_name: null,
      group_name: null,
    });
    expect(Number(threshold.level)).toBe(2);
  });

  it("pages: windows of 3 read every rule once, in the same order as one window", async () => {
    const all = (await window({ limit: 500, sort: "cost" })).rows;
    const paged = await everyRow({ sort: "cost" }, 3);
    expect(ids(paged)).toEqual(ids(all));
    expect(new Set(ids(paged)).size).toBe(11);
    const beyond = await window({ offset: 20, limit: 5 });
    expect(beyond).toEqual({ total: 11, offset: 20, rows: [] });
  });

  it("sorts costs by value, not as text, both ways, with ties in a stable order", async () => {
    const ascending = await everyRow({ sort: "cost" });
    expect(costs(ascending)).toEqual([-20, -1.5, 0.05, 0.25, 0.5, 3, 4, 9.5, 10, 100, 1000]);
    const descending = await everyRow({ sort: "cost", desc: true });
    expect(costs(descending)).toEqual([1000, 100, 10, 9.5, 4, 3, 0.5, 0.25, 0.05, -1.5, -20]);
  });

  it("sorts threshold levels by value and mapping values as text", async () => {
    const levels = await everyRow({ kind: "threshold", sort: "match" });
    expect(levels.map((row) => Number(row.level))).toEqual([1.5, 2, 10]);
    const values = await everyRow({
      kind: "mapping",
      field_id: seeded.fieldId,
      sort: "match",
      desc: true,
    });
    expect(values.map((row) => row.value)).toEqual([
      "m2.future",
      "m1.xlarge",
      "m1.tiny",
      "m1.small",
      "m1.small",
      "m1.large",
      "m0.past",
    ]);
    // The tie (two m1.small) in creation order.
    expect(values[3].id).toBe(seeded.mappings.small.mapping_id);
  });

  it("sorts by group name (no group first), tenant, type, kind and where the rule is attached", async () => {
    const byGroup = await everyRow({ sort: "groupName" });
    expect(byGroup.map((row) => row.group_name ?? "")).toEqual([
      "",
      "",
      "",
      "",
      "",
      "",
      expect.any(String),
      expect.any(String),
      expect.any(String),
      expect.any(String),
      expect.any(String),
    ]);
    const named = byGroup.slice(6).map((row) => row.group_name);
    expect(named).toEqual(
      [...named].sort((a, b) => a.toLowerCase().localeCompare(b.toLowerCase())),
    );
    const byTenant = await everyRow({ sort: "tenant", desc: true });
    expect(byTenant[0].tenant_id).toBe("acme");
    const byType = await everyRow({ sort: "type", desc: true });
    expect(byType[0].type).toBe("rate");
    const byKind = await everyRow({ sort: "kind", desc: true });
    expect(byKind[0].kind).toBe("threshold");
    const byParent = await everyRow({ sort: "attachedTo" });
    // "instance-…" (the service's own rules) before "instance-… › flavor_id".
    expect(byParent.slice(0, 4).map((row) => row.field_id)).toEqual([null, null, null, null]);
  });

  it("filters by kind, parent, group, no group, tenant, all tenants, type, creator and description", async () => {
    expect((await window({ kind: "threshold" })).total).toBe(3);
    expect((await window({ kind: "mapping" })).total).toBe(8);
    expect((await window({ field_id: seeded.fieldId })).total).toBe(7);
    expect((await window({ service_id: seeded.serviceId })).total).toBe(4);
    expect((await window({ service_id: seeded.serviceId, kind: "mapping" })).total).toBe(1);
    expect(ids((await window({ group_id: seeded.groupId })).rows).sort()).toEqual(
      [
        seeded.mappings.small.mapping_id,
        seeded.mappings.large.mapping_id,
        seeded.mappings.service.mapping_id,
        seeded.thresholds.onePointFive.threshold_id,
      ].sort(),
    );
    expect((await window({ no_group: true })).total).toBe(6);
    expect(ids((await window({ tenant_id: "acme" })).rows)).toEqual([
      seeded.mappings.acme.mapping_id,
    ]);
    expect((await window({ no_tenant: true })).total).toBe(10);
    expect((await window({ type: "rate" })).total).toBe(1);
    expect((await window({ created_by: "nobody" })).total).toBe(0);
    expect(ids((await window({ description: "base PRICE" })).rows)).toEqual([
      seeded.mappings.service.mapping_id,
    ]);
  });

  it("searches what a list shows, in any case: values, names, tenants, costs, types, kinds", async () => {
    const search = async (q: string) => (await window({ q, limit: 500 })).total;
    expect(await search("M1.SMALL")).toBe(2);
    expect(await search("flavor_ID")).toBe(7);
    expect(await search(seeded.serviceName.toUpperCase())).toBe(11);
    expect(await search(`${seeded.serviceName} › flav`)).toBe(7);
    expect(await search(seeded.groupName)).toBe(4);
    expect(await search("acm")).toBe(1);
    expect(await search("1000")).toBe(1);
    expect(await search("threshold")).toBe(3);
    expect(await search("rate")).toBe(1);
    // LIKE's wildcards are searched as text.
    expect(await search("%")).toBe(0);
    expect(await search("m1_small")).toBe(0);
  });

  it("filters by status, judged at the given moment; deleted rules only with status=deleted", async () => {
    const at = new Date().toISOString();
    const status = async (value: string, when = at) =>
      ids((await window({ status: value, at: when, limit: 500 })).rows);
    expect(await status("scheduled")).toEqual([seeded.mappings.scheduled.mapping_id]);
    expect(await status("ended")).toEqual([seeded.mappings.ended.mapping_id]);
    expect(await status("in_force")).toHaveLength(9);
    expect(await status("deleted")).toEqual([seeded.mappings.deleted.mapping_id]);
    const deleted = (await window({ status: "deleted" })).rows[0];
    expect(deleted.deleted).toEqual(expect.any(String));
    // Two days on, the scheduled rule is in force.
    expect(await status("in_force", new Date(Date.now() + 2 * DAY).toISOString())).toContain(
      seeded.mappings.scheduled.mapping_id,
    );
  });

  it("finds where a rule stands in the sorted list (a saved rule the list scrolls to)", async () => {
    const sorted = await everyRow({ sort: "cost", desc: true });
    const target = seeded.mappings.tiny.mapping_id;
    const answer = await window({
      sort: "cost",
      desc: true,
      limit: 1,
      find: { kind: "mapping", id: target },
    });
    expect(answer.position).toBe(ids(sorted).indexOf(target));
    const missing = await window({
      kind: "threshold",
      find: { kind: "mapping", id: target },
    });
    expect(missing.position).toBeNull();
    expect((await window({ limit: 1 })).position).toBeUndefined();
  });

  it("refuses a window too large, a negative offset, a status without its moment", async () => {
    for (const input of [
      { limit: 501 },
      { limit: 0 },
      { offset: -1 },
      { status: "in_force" },
      { sort: "nonsense" },
    ]) {
      const answer = await rpc(server.baseUrl, "console.rules", input);
      expect(answer.status, JSON.stringify(input)).toBe(400);
    }
  });

  it("is kept by the read snapshot: the same window again is a 304 for its ETag", async () => {
    const url = new URL("/trpc/console.rules", server.baseUrl);
    url.searchParams.set("input", JSON.stringify({ sort: "cost", limit: 5 }));
    // An answer is kept unless the data version moved while it was computed (a statement taken
    // for a write moves it on PostgreSQL: the window's queries must not).
    let etag: string | null = null;
    for (let attempt = 0; attempt < 5 && !etag; attempt++) {
      const answer = await fetch(url);
      expect(answer.status).toBe(200);
      etag = answer.headers.get("etag");
    }
    expect(etag).toBeTruthy();
    const again = await fetch(url, { headers: { "If-None-Match": etag! } });
    expect(again.status).toBe(304);
  });
});
