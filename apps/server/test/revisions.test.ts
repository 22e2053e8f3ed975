import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rpc } from "./support/auth.js";
import { createClient, HASHMAP, PYSCRIPTS, type Client } from "./support/client.js";
import { expectFault, seeder, UNKNOWN_ID, type Seeder } from "./support/hashmap.js";
import { startServer, type TestServer } from "./support/server.js";

// No lost updates (issue 10, point 5): every resource has a revision, REST answers for one
// resource carry it as the ETag, PUT and DELETE honour If-Match with 412 and nothing changed,
// and requests without If-Match (CloudKitty's clients) behave as before. RPC carries the revision
// in its objects and takes it back as `revision`.

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

const COST = (n: number) => `${n}.0000000000000000000000000000`;
const tagOf = (id: string, revision: number) => `"${id}.${revision}"`;
const ifMatch = (etag: string | null) => ({ headers: { "If-Match": etag ?? "" } });

describe("ETag", () => {
  it("tags a create, a read and an update of one resource with its id and revision", async () => {
    const { serviceId } = await seed.parents();
    const created = await api.post(`${HASHMAP}/mappings`, { service_id: serviceId, cost: 1 });
    expect(created.status).toBe(201);
    const id = created.body.mapping_id;
    expect(created.headers.get("etag")).toBe(tagOf(id, 1));
    // CloudKitty's object, unchanged: the revision travels in the header only.
    expect(Object.keys(created.body)).toEqual([
      "mapping_id",
      "value",
      "type",
      "cost",
      "service_id",
      "field_id",
      "group_id",
      "tenant_id",
      // CloudKitty master's lifecycle (docs/lifecycle.md).
      "created_at",
      "start",
      "end",
      "name",
      "description",
      "deleted",
      "created_by",
      "updated_by",
      "deleted_by",
    ]);

    const read = await api.get(`${HASHMAP}/mappings/${id}`);
    expect(read.headers.get("etag")).toBe(tagOf(id, 1));
    const notModified = await api.get(`${HASHMAP}/mappings/${id}`, {
      headers: { "If-None-Match": tagOf(id, 1) },
    });
    expect(notModified.status).toBe(304);

    const updated = await api.put(`${HASHMAP}/mappings/${id}`, { cost: 2 });
    expect(updated.status).toBe(200);
    expect(updated.headers.get("etag")).toBe(tagOf(id, 2));
    expect(updated.text).not.toContain("revision");
    expect((await api.get(`${HASHMAP}/mappings/${id}`)).headers.get("etag")).toBe(tagOf(id, 2));
  });

  it("tags every kind of resource, and lists carry no revision", async () => {
    const service = await api.post(`${HASHMAP}/services`, { name: "etag-service" });
    const field = await api.post(`${HASHMAP}/fields`, {
      name: "flavor",
      service_id: service.body.service_id,
    });
    const group = await api.post(`${HASHMAP}/groups`, { name: "etag-group" });
    const threshold = await api.post(`${HASHMAP}/thresholds`, {
      field_id: field.body.field_id,
      level: 1,
      cost: 1,
    });
    const script = await api.post(`${PYSCRIPTS}/scripts`, { name: "etag-script", data: "a = 1" });
    for (const [answer, id] of [
      [service, service.body.service_id],
      [field, field.body.field_id],
      [group, group.body.group_id],
      [threshold, threshold.body.threshold_id],
      [script, script.body.script_id],
    ] as const) {
      expect(answer.status).toBe(201);
      expect(answer.headers.get("etag")).toBe(tagOf(id, 1));
    }
    const module = await api.get("/v1/rating/modules/hashmap");
    expect(module.headers.get("etag")).toMatch(/^"hashmap\.\d+"$/);
    for (const list of [
      `${HASHMAP}/services`,
      `${HASHMAP}/groups`,
      `${HASHMAP}/mappings`,
      `${HASHMAP}/thresholds`,
      `${PYSCRIPTS}/scripts`,
      "/v1/rating/modules",
    ]) {
      const answer = await api.get(list);
      expect(answer.status).toBe(200);
      expect(answer.text, list).not.toContain("revision");
    }
  });
});

describe("If-Match on PUT", () => {
  it("two clients with the same ETag: the second gets 412 and the data holds the first change", async () => {
    const { serviceId } = await seed.parents();
    const mapping = await seed.mapping({ service_id: serviceId, cost: 1 });
    const id = mapping.mapping_id;
    const first = await api.get(`${HASHMAP}/mappings/${id}`);
    const second = await api.get(`${HASHMAP}/mappings/${id}`);
    const etag = first.headers.get("etag");
    expect(second.headers.get("etag")).toBe(etag);

    // The first client makes it a per-tenant override; the second, still on the old copy,
    // would have turned it back into a global rule.
    const applied = await api.put(
      `${HASHMAP}/mappings/${id}`,
      { ...first.body, cost: 5, tenant_id: "tenant-a" },
      ifMatch(etag),
    );
    expect(applied.status, applied.text).toBe(200);
    const refused = await api.put(
      `${HASHMAP}/mappings/${id}`,
      { ...second.body, cost: 7 },
      ifMatch(etag),
    );
    // The refusal says whose change it would have undone, and when (from the audit trail).
    expectFault(
      refused,
      412,
      new RegExp(
        `^Mapping ${id} was changed since it was read: it is at revision 2, not revision 1 ` +
          String.raw`\(last changed by noauth at \d{4}-\d\d-\d\dT[\d:.]+Z\)\. ` +
          "Read it again and reapply the change.$",
      ),
    );
    const now = await api.get(`${HASHMAP}/mappings/${id}`);
    expect(now.body).toMatchObject({ cost: COST(5), tenant_id: "tenant-a" });
    expect(now.headers.get("etag")).toBe(tagOf(id, 2));
  });

  it("holds for thresholds, scripts and modules too", async () => {
    const { fieldId } = await seed.parents();
    const threshold = await seed.threshold({ field_id: fieldId, level: 3 });
    const script = (await api.post(`${PYSCRIPTS}/scripts`, { name: "if-match", data: "a = 0" }))
      .body;
    const module = await api.get("/v1/rating/modules/noop");
    const cases = [
      {
        path: `${HASHMAP}/thresholds/${threshold.threshold_id}`,
        change: (n: number) => ({ level: 3, cost: n }),
        check: (body: any, n: number) => expect(body.cost).toBe(COST(n)),
      },
      {
        path: `${PYSCRIPTS}/scripts/${script.script_id}`,
        change: (n: number) => ({ data: `a = ${n}` }),
        check: (body: any, n: number) => expect(body.data).toBe(`a = ${n}`),
      },
      {
        path: "/v1/rating/modules/noop",
        change: (n: number) => ({ priority: 10 + n }),
        check: (body: any, n: number) => expect(body.priority).toBe(10 + n),
      },
    ];
    expect(module.status).toBe(200);
    for (const { path, change, check } of cases) {
      const etag = (await api.get(path)).headers.get("etag");
      const first = await api.put(path, change(1), ifMatch(etag));
      expect(first.status, `${path}: ${first.text}`).toBe(200);
      expect(first.headers.get("etag")).not.toBe(etag);
      const second = await api.put(path, change(2), ifMatch(etag));
      expect(second.status, path).toBe(412);
      expect(second.body.faultcode).toBe("Client");
      check((await api.get(path)).body, 1);
      // With the new ETag the change goes through.
      const third = await api.put(path, change(3), ifMatch(first.headers.get("etag")));
      expect(third.status, path).toBe(200);
      check((await api.get(path)).body, 3);
    }
  });

  it("without If-Match, or with If-Match: *, writes as CloudKitty does", async () => {
    const { serviceId } = await seed.parents();
    const mapping = await seed.mapping({ service_id: serviceId });
    const id = mapping.mapping_id;
    await api.put(`${HASHMAP}/mappings/${id}`, { cost: 2 });
    const plain = await api.put(`${HASHMAP}/mappings/${id}`, { cost: 3 });
    expect(plain.status).toBe(200);
    const star = await api.put(`${HASHMAP}/mappings/${id}`, { cost: 4 }, ifMatch("*"));
    expect(star.status).toBe(200);
    expect(star.headers.get("etag")).toBe(tagOf(id, 4));
    // The CLI's form: the id in the body of PUT on the collection.
    const cli = await api.put(`${HASHMAP}/mappings/`, { ...star.body, cost: 5 });
    expect(cli.status).toBe(200);
    expect(cli.body.cost).toBe(COST(5));
  });

  it("refuses another resource's ETag, a weak one, and answers 404 for a missing resource", async () => {
    const { serviceId, fieldId } = await seed.parents();
    const a = await api.post(`${HASHMAP}/mappings`, { service_id: serviceId, cost: 1 });
    const b = await seed.mapping({ field_id: fieldId, value: "x" });
    const other = await api.put(
      `${HASHMAP}/mappings/${b.mapping_id}`,
      { value: "x", cost: 9 },
      ifMatch(a.headers.get("etag")),
    );
    expectFault(
      other,
      412,
      new RegExp(
        `^Mapping ${b.mapping_id} was changed since it was read: it is at revision 1, not the ` +
          String.raw`ETag given \(last changed by noauth at [^)]+\)\. Read it again`,
      ),
    );
    const weak = await api.put(
      `${HASHMAP}/mappings/${b.mapping_id}`,
      { value: "x", cost: 9 },
      ifMatch(`W/${tagOf(b.mapping_id, 1)}`),
    );
    expect(weak.status).toBe(412);
    const listed = await api.put(
      `${HASHMAP}/mappings/${b.mapping_id}`,
      { value: "x", cost: 9 },
      ifMatch(`${a.headers.get("etag")}, ${tagOf(b.mapping_id, 1)}`),
    );
    expect(listed.status).toBe(200);
    expect((await api.get(`${HASHMAP}/mappings/${a.body.mapping_id}`)).body.cost).toBe(COST(1));
    const missing = await api.put(
      `${HASHMAP}/mappings/${UNKNOWN_ID}`,
      { cost: 1 },
      ifMatch(tagOf(UNKNOWN_ID, 1)),
    );
    expect(missing.status).toBe(404);
  });

  it("refuses `revision` in a REST body or query string, as CloudKitty refuses unknown attributes", async () => {
    const { serviceId } = await seed.parents();
    const mapping = await seed.mapping({ service_id: serviceId });
    expectFault(
      await api.put(`${HASHMAP}/mappings/${mapping.mapping_id}`, { cost: 2, revision: 1 }),
      400,
      "Unknown attribute for argument mapping: revision",
    );
    expectFault(
      await api.delete(`${HASHMAP}/mappings/${mapping.mapping_id}`, { query: { revision: "1" } }),
      400,
      'Unknown argument: "revision"',
    );
    expect((await api.get(`${HASHMAP}/mappings/${mapping.mapping_id}`)).body.cost).toBe(COST(1));
  });
});

describe("If-Match on DELETE", () => {
  it("refuses a stale ETag with 412 and deletes nothing, then deletes with the current one", async () => {
    const { serviceId, fieldId } = await seed.parents();
    const group = await seed.group();
    const mapping = await seed.mapping({ service_id: serviceId, group_id: group.group_id });
    const threshold = await seed.threshold({ field_id: fieldId, level: 1 });
    const script = (await api.post(`${PYSCRIPTS}/scripts`, { name: "delete-me", data: "" })).body;
    const targets = [
      { path: `${HASHMAP}/mappings/${mapping.mapping_id}`, change: { cost: 3 } },
      { path: `${HASHMAP}/thresholds/${threshold.threshold_id}`, change: { level: 1, cost: 3 } },
      { path: `${PYSCRIPTS}/scripts/${script.script_id}`, change: { data: "b = 2" } },
    ];
    for (const { path, change } of targets) {
      const stale = (await api.get(path)).headers.get("etag");
      await api.put(path, change);
      expect((await api.delete(path, ifMatch(stale))).status, path).toBe(412);
      expect((await api.get(path)).status, path).toBe(200);
      const current = (await api.get(path)).headers.get("etag");
      expect((await api.delete(path, ifMatch(current))).status, path).toBe(204);
      // A soft delete (docs/lifecycle.md): a rule is still shown, marked deleted; a script is not.
      const after = await api.get(path);
      if (path.startsWith(PYSCRIPTS)) expect(after.status, path).toBe(404);
      else expect(after.body.deleted, path).toEqual(expect.any(String));
    }
    // Services, fields and groups change when deleted only; a tag of another revision is stale.
    const parents = [
      `${HASHMAP}/groups/${group.group_id}`,
      `${HASHMAP}/fields/${fieldId}`,
      `${HASHMAP}/services/${serviceId}`,
    ];
    for (const path of parents) {
      const id = path.split("/").pop()!;
      expect((await api.delete(path, ifMatch(tagOf(id, 7)))).status, path).toBe(412);
      expect((await api.get(path)).status, path).toBe(200);
      expect((await api.delete(path, ifMatch(tagOf(id, 1)))).status, path).toBe(204);
    }
  });

  it("takes If-Match with the id in the body of DELETE on the collection (the CLI's form)", async () => {
    const { serviceId } = await seed.parents();
    const mapping = await seed.mapping({ service_id: serviceId });
    const stale = await api.request("DELETE", `${HASHMAP}/mappings/`, {
      body: { mapping_id: mapping.mapping_id },
      ...ifMatch(tagOf(mapping.mapping_id, 2)),
    });
    expect(stale.status).toBe(412);
    const plain = await api.request("DELETE", `${HASHMAP}/mappings/`, {
      body: { mapping_id: mapping.mapping_id },
    });
    expect(plain.status).toBe(204);
  });

  it("answers 404 for a missing resource whatever the If-Match", async () => {
    const answer = await api.delete(`${HASHMAP}/mappings/${UNKNOWN_ID}`, ifMatch('"x.1"'));
    expect(answer.status).toBe(404);
  });
});

describe("RPC", () => {
  it("answers objects with their revision and takes it back as `revision`", async () => {
    const { serviceId } = await seed.parents();
    const created = await rpc(
      server.baseUrl,
      "hashmap.mappings.create",
      { service_id: serviceId, cost: "1" },
      { type: "mutation" },
    );
    expect(created.data).toMatchObject({ revision: 1 });
    const id = created.data.mapping_id;
    const listed = await rpc(server.baseUrl, "hashmap.mappings.list", { service_id: serviceId });
    expect(listed.data.mappings).toEqual([created.data]);

    const first = await rpc(
      server.baseUrl,
      "hashmap.mappings.update",
      { mapping_id: id, cost: "2", revision: 1 },
      { type: "mutation" },
    );
    expect(first.data).toMatchObject({ cost: COST(2), revision: 2 });
    const second = await rpc(
      server.baseUrl,
      "hashmap.mappings.update",
      { mapping_id: id, cost: "3", revision: 1 },
      { type: "mutation" },
    );
    expect(second.status).toBe(412);
    expect(second.code).toBe("PRECONDITION_FAILED");
    const refusedDelete = await rpc(
      server.baseUrl,
      "hashmap.mappings.delete",
      { mapping_id: id, revision: 1 },
      { type: "mutation" },
    );
    expect(refusedDelete.code).toBe("PRECONDITION_FAILED");
    const read = await rpc(server.baseUrl, "hashmap.mappings.get", { mapping_id: id });
    expect(read.data).toMatchObject({ cost: COST(2), revision: 2 });
    const deleted = await rpc(
      server.baseUrl,
      "hashmap.mappings.delete",
      { mapping_id: id, revision: 2 },
      { type: "mutation" },
    );
    expect(deleted.status).toBe(200);
  });

  it("moves the revision of rules a group's deletion moves to no group", async () => {
    const { serviceId } = await seed.parents();
    const group = await seed.group();
    const mapping = await seed.mapping({ service_id: serviceId, group_id: group.group_id });
    const etag = (await api.get(`${HASHMAP}/mappings/${mapping.mapping_id}`)).headers.get("etag");
    expect((await api.delete(`${HASHMAP}/groups/${group.group_id}`)).status).toBe(204);
    const after = await api.get(`${HASHMAP}/mappings/${mapping.mapping_id}`);
    expect(after.body.group_id).toBeNull();
    expect(after.headers.get("etag")).toBe(tagOf(mapping.mapping_id, 2));
    const stale = await api.put(
      `${HASHMAP}/mappings/${mapping.mapping_id}`,
      { cost: 9, group_id: group.group_id },
      ifMatch(etag),
    );
    expect(stale.status).toBe(412);
  });
});
