import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { localAccountsServer, rpc, type Session, sessionHeaders } from "./support/auth.js";
import { createClient, HASHMAP, PYSCRIPTS, type Client } from "./support/client.js";
import { expectFault } from "./support/hashmap.js";
import { startServer, type TestServer } from "./support/server.js";

// POST /v1/ratecard/ruleset/apply (issue 14, part 1) over real HTTP: the document's plan carried
// out in one transaction against the revision the document names, keeping its ids, with one audit
// event per change; export afterwards gives the document back.

const RULESET = "/v1/ratecard/ruleset";
const APPLY = "/v1/ratecard/ruleset/apply";

const id = () => randomUUID();

interface Rule {
  id: string;
  type: "flat" | "rate";
  cost: string;
  tenant_id: string | null;
  group_id: string | null;
  start: string;
  end: string | null;
  name: string | null;
  description: string | null;
}
type Mapping = Rule & { value: string | null };
type Threshold = Rule & { level: string };

/** The lifecycle as an export states it: in force since 2026, no end, a name of its own. */
const lifecycle = (ruleId: string) => ({
  start: "2026-01-01T00:00:00",
  end: null,
  name: `rule-${ruleId.slice(0, 8)}`,
  description: null,
});
/** Past moments are taken as given: a document restates rules (as ?force=true does). */
const SCHEDULED = { start: "2030-01-01T00:00:00" };
const ENDED = { end: "2026-06-30T23:59:59", description: "the 2026 promotion" };

const mapping = (value: string | null, cost: string, extra: Partial<Mapping> = {}): Mapping => {
  const ruleId = id();
  return {
    id: ruleId,
    value,
    type: "flat",
    cost,
    tenant_id: null,
    group_id: null,
    ...lifecycle(ruleId),
    ...extra,
  };
};
const threshold = (level: string, cost: string, extra: Partial<Threshold> = {}): Threshold => {
  const ruleId = id();
  return {
    id: ruleId,
    level,
    type: "rate",
    cost,
    tenant_id: null,
    group_id: null,
    ...lifecycle(ruleId),
    ...extra,
  };
};

/** A rule set with a bit of everything, in the export's canonical order. */
function sampleDocument() {
  const uptime = { id: id(), name: "instance_uptime" };
  const storage = { id: id(), name: "storage" };
  return {
    format: "ratecard.ruleset",
    version: 2,
    revision: "",
    modules: [] as { id: string; enabled: boolean; priority: number }[],
    groups: [uptime, storage],
    services: [
      {
        id: id(),
        name: "compute",
        mappings: [] as Mapping[],
        thresholds: [] as Threshold[],
        fields: [
          {
            id: id(),
            name: "flavor",
            mappings: [
              mapping("m1.large", "0.5", { tenant_id: "tenant-a" }),
              mapping("m1.small", "0.0125", { group_id: uptime.id }),
            ],
            thresholds: [] as Threshold[],
          },
          {
            id: id(),
            name: "image",
            mappings: [mapping("debian", "0.001", SCHEDULED), mapping("windows", "0.02", ENDED)],
            thresholds: [threshold("2", "0.9", { end: "2031-12-31T23:59:59.500000" })],
          },
        ],
      },
      {
        id: id(),
        name: "volume.size",
        mappings: [mapping(null, "0.001", { type: "rate", group_id: storage.id })],
        thresholds: [threshold("100", "0.9"), threshold("1000", "0.8")],
        fields: [] as {
          id: string;
          name: string;
          mappings: Mapping[];
          thresholds: Threshold[];
        }[],
      },
    ],
    scripts: [
      {
        id: id(),
        name: "discount",
        data: "a = 1\n",
        start: "2026-02-01T08:30:00",
        end: null,
        description: "a discount for everyone",
      },
    ],
  };
}
type Doc = ReturnType<typeof sampleDocument>;

const withoutRevision = (text: string) => text.replace(/^ {2}"revision": "\d+",$/m, "");

describe("apply (noauth)", () => {
  let server: TestServer;
  let api: Client;

  beforeAll(async () => {
    server = await startServer();
    api = createClient(server.baseUrl);
  });
  afterAll(async () => {
    await server?.stop();
  });

  async function exported(client = api) {
    const answer = await client.get(RULESET);
    expect(answer.status, answer.text).toBe(200);
    return answer;
  }

  /** Applies `document` against the current revision, expecting success. */
  async function apply(document: Doc, client = api) {
    const { body } = await exported(client);
    const answer = await client.post(APPLY, {
      ...document,
      modules: document.modules.length ? document.modules : body.modules,
      revision: body.revision,
    });
    expect(
      answer.status,
      answer.text +
        (answer.status === 500
          ? server
              .output()
              .split("\n")
              .filter((l) => l.includes('"level":50'))
              .join("\n")
          : ""),
    ).toBe(200);
    expect(answer.body.planned_revision).toBe(body.revision);
    return answer.body;
  }

  async function events(since: number) {
    const answer = await api.get("/v1/ratecard/audit", { query: { limit: "1000" } });
    expect(answer.status, answer.text).toBe(200);
    return (answer.body.events as any[]).filter((e) => e.event_id > since).reverse();
  }

  let document: Doc;

  it("applies a document to an empty Ratecard, keeping its ids, one audit event per object", async () => {
    document = sampleDocument();
    const before = await exported();
    expect(before.body.services).toEqual([]);
    const result = await apply(document);
    // 2 groups, 2 services, 2 fields, 5 mappings, 3 thresholds, 1 script.
    expect(result.counts).toMatchObject({ create: 15, update: 0, delete: 0 });
    expect(Number(result.revision)).toBe(Number(before.body.revision) + 15);

    const after = await exported();
    expect(after.body).toEqual({
      ...document,
      modules: before.body.modules,
      revision: result.revision,
    });
    const small = document.services[0]!.fields[0]!.mappings[1]!;
    const viaCloudKitty = await api.get(`${HASHMAP}/mappings/${small.id}`);
    expect(viaCloudKitty.status, viaCloudKitty.text).toBe(200);
    expect(viaCloudKitty.body).toMatchObject({
      mapping_id: small.id,
      value: "m1.small",
      field_id: document.services[0]!.fields[0]!.id,
      group_id: document.groups[0]!.id,
    });
    const windows = document.services[0]!.fields[1]!.mappings[1]!;
    expect((await api.get(`${HASHMAP}/mappings/${windows.id}`)).body).toMatchObject({
      ...ENDED,
      name: windows.name,
      start: "2026-01-01T00:00:00",
      created_by: "noauth",
    });
    const script = await api.get(`${PYSCRIPTS}/scripts/${document.scripts[0]!.id}`);
    expect(script.body).toMatchObject({
      name: "discount",
      data: "a = 1\n",
      start: "2026-02-01T08:30:00",
      description: "a discount for everyone",
    });
    expect(script.body.checksum).toMatch(/^[0-9a-f]{128}$/);

    const trail = await events(Number(before.body.revision));
    expect(trail).toHaveLength(15);
    expect(trail.every((e) => e.operation === "create" && e.before === null)).toBe(true);
    expect(trail.map((e) => e.resource_type)).toEqual([
      ...Array(2).fill("group"),
      ...Array(2).fill("service"),
      ...Array(2).fill("field"),
      ...Array(5).fill("mapping"),
      ...Array(3).fill("threshold"),
      "script",
    ]);
    expect(trail.find((e) => e.resource_id === small.id).after).toMatchObject({
      mapping_id: small.id,
      revision: 1,
    });
    expect(trail.at(-1).event_id).toBe(Number(result.revision));

    // Applying the same document again changes nothing.
    const again = await apply(document);
    expect(again.counts).toMatchObject({ create: 0, update: 0, delete: 0 });
    expect(again.revision).toBe(result.revision);
  });

  it("export -> apply to a fresh Ratecard -> export gives identical bytes (JSON and YAML)", async () => {
    const fresh = await startServer();
    try {
      const other = createClient(fresh.baseUrl);
      const source = await exported();
      const target = await exported(other);
      const answer = await other.post(APPLY, { ...source.body, revision: target.body.revision });
      expect(answer.status, answer.text).toBe(200);
      const copy = await exported(other);
      expect(withoutRevision(copy.text)).toBe(withoutRevision(source.text));
      const yaml = async (baseUrl: string) =>
        (await (await fetch(new URL(`${RULESET}?format=yaml`, baseUrl))).text()).replace(
          /^revision: "\d+"$/m,
          "",
        );
      expect(await yaml(fresh.baseUrl)).toBe(await yaml(server.baseUrl));
    } finally {
      await fresh.stop();
    }
  });

  it("refuses a document planned against a revision that has moved (409), changing nothing", async () => {
    const before = await exported();
    const stale = structuredClone(before.body);
    stale.services[0].fields[0].mappings[0].cost = "0.75";
    // Someone else changes the rule set after the plan.
    const group = await api.post(`${HASHMAP}/groups`, { name: "meanwhile" });
    expect(group.status, group.text).toBe(201);
    const moved = await exported();
    const refused = await api.post(APPLY, stale);
    expectFault(
      refused,
      409,
      new RegExp(
        `^The rule set changed since the document was planned: planned against revision ` +
          `${before.body.revision}, Ratecard is at revision ${moved.body.revision} \\(last change: ` +
          `create of group ${group.body.group_id} by .*\\)\\. Plan again`,
      ),
    );
    expect((await exported()).text).toBe(moved.text);
    expect(await api.delete(`${HASHMAP}/groups/${group.body.group_id}`)).toMatchObject({
      status: 204,
    });
  });

  it("refuses a malformed document, one without a revision and an unparsable script (400 with paths), changing nothing", async () => {
    const before = await exported();
    const bad = structuredClone(before.body);
    bad.services[0].fields[0].mappings[0].type = "bogus";
    bad.services[1].thresholds[0].level = 100;
    bad.groups[0].id = "not-a-uuid";
    const refused = await api.post(APPLY, bad);
    // The group's bad id leaves a rule naming it without its group: four errors.
    expectFault(refused, 400, /^Invalid rule set document \(4 errors\): /);
    for (const path of [
      "services[0].fields[0].mappings[0].type",
      "services[1].thresholds[0].level",
      "groups[0].id",
      "services[0].fields[0].mappings[1].group_id",
    ])
      expect(refused.body.faultstring).toContain(path);

    const unplanned = { ...before.body, revision: undefined };
    expectFault(
      await api.post(APPLY, unplanned),
      400,
      /^Invalid rule set document \(1 error\): revision: required to apply/,
    );

    const script = structuredClone(before.body);
    script.scripts[0].data = "def broken(:\n";
    script.services[0].name = "renamed";
    expectFault(
      await api.post(APPLY, script),
      400,
      /^Invalid rule set document \(1 error\): scripts\[0\]\.data: Python syntax error at line 1/,
    );

    const unknownModule = structuredClone(before.body);
    unknownModule.modules.push({ id: "nosuch", enabled: true, priority: 1 });
    expectFault(await api.post(APPLY, unknownModule), 400, /modules\[\d\]\.id: no rating module/);
    expect((await exported()).text).toBe(before.text);
  });

  it("swaps names and rule identities in one apply (no transient collision)", async () => {
    const current = (await exported()).body as Doc;
    const desired = structuredClone(current);
    const [compute, volume] = desired.services as [Doc["services"][0], Doc["services"][1]];
    // Services, groups and fields trade names.
    [compute.name, volume.name] = [volume.name, compute.name];
    [desired.groups[0]!.name, desired.groups[1]!.name] = [
      desired.groups[1]!.name,
      desired.groups[0]!.name,
    ];
    const [flavor, image] = compute.fields as [
      Doc["services"][0]["fields"][0],
      Doc["services"][0]["fields"][0],
    ];
    [flavor.name, image.name] = [image.name, flavor.name];
    // Two mappings trade values, two thresholds trade levels: each takes the other's identity.
    const [debian, windows] = image.mappings as [Mapping, Mapping];
    [debian.value, windows.value] = [windows.value, debian.value];
    // ... and their names (unique among mappings).
    [debian.name, windows.name] = [windows.name, debian.name];
    const [hundred, thousand] = volume.thresholds as [Threshold, Threshold];
    [hundred.level, thousand.level] = [thousand.level, hundred.level];
    // A third rule takes the slot a second one leaves (tenant-a -> null, null -> tenant-a).
    const large = flavor.mappings[0]!;
    flavor.mappings.push(mapping("m1.large", "0.4"));
    const taken = flavor.mappings.at(-1)!;
    [large.tenant_id, taken.tenant_id] = [null, "tenant-a"];

    const result = await apply(desired);
    expect(result.counts).toMatchObject({ create: 1, update: 11, delete: 0 });
    // The export gives the document back: planning it again finds nothing to do.
    const plan = await api.post("/v1/ratecard/ruleset/plan", { ...desired, revision: "" });
    expect(plan.status, plan.text).toBe(200);
    expect(plan.body.operations).toEqual([]);
    const services = (await exported()).body.services;
    expect(services.map((s: any) => [s.id, s.name])).toEqual([
      [volume.id, "compute"],
      [compute.id, "volume.size"],
    ]);
    const windowsNow = await api.get(`${HASHMAP}/mappings/${windows.id}`);
    expect(windowsNow.body.value).toBe("debian");
    // An update keeps the id and moves the revision once.
    expect(windowsNow.headers.get("etag")).toBe(`"${windows.id}.2"`);
  });

  it("moves rules into, out of and between groups and parents; deletes a group its rules leave", async () => {
    const current = (await exported()).body as Doc;
    const desired = structuredClone(current);
    const fields = desired.services.flatMap((s) => s.fields);
    const flavor = fields.find((f) => f.name === "flavor")!;
    const image = fields.find((f) => f.name === "image")!;
    const rules = () =>
      desired.services.flatMap((s) => [
        ...s.mappings,
        ...s.thresholds,
        ...s.fields.flatMap((f) => [...f.mappings, ...f.thresholds]),
      ]);
    const newGroup = { id: id(), name: "new-group" };
    const oldGroups = desired.groups.map((g) => g.id);
    desired.groups = [newGroup];
    // Every rule in a group moves to the new one, except one that leaves its group.
    const grouped = rules().filter((rule) => rule.group_id);
    expect(grouped.length).toBeGreaterThanOrEqual(2);
    for (const rule of grouped) rule.group_id = newGroup.id;
    const ungrouped = grouped[0]!;
    ungrouped.group_id = null;
    // A rule with no group moves to another field and into the group.
    const moved = image.mappings.find((m) => !m.group_id)!;
    image.mappings.splice(image.mappings.indexOf(moved), 1);
    flavor.mappings.push({ ...moved, value: "moved", group_id: newGroup.id });

    const before = await exported();
    const result = await apply(desired);
    expect(result.counts.byKind.group).toEqual({ create: 1, update: 0, delete: 2 });
    expect(result.counts.byKind.mapping.create).toBe(1);
    expect(result.counts.byKind.mapping.delete).toBe(1);
    const after = await exported();
    expect(after.body.groups).toEqual([newGroup]);
    const movedNow = await api.get(`${HASHMAP}/mappings/${moved.id}`);
    expect(movedNow.body).toMatchObject({
      field_id: flavor.id,
      value: "moved",
      group_id: newGroup.id,
    });
    expect((await api.get(`${HASHMAP}/mappings/${ungrouped.id}`)).body.group_id).toBeNull();
    for (const group of oldGroups)
      expect((await api.get(`${HASHMAP}/groups/${group}`)).status).toBe(404);
    // The replaced rule: a delete and a create of the same id.
    const trail = (await events(Number(before.body.revision))).filter(
      (e) => e.resource_id === moved.id,
    );
    expect(trail.map((e) => e.operation)).toEqual(["delete", "create"]);
  });

  it("deletes a service with its fields and rules, one event each, and a module change is an update", async () => {
    const before = await exported();
    const desired = structuredClone(before.body) as Doc;
    const compute = desired.services.find((s) => s.name === "compute")!;
    desired.services = desired.services.filter((s) => s !== compute);
    const hashmap = desired.modules.find((m) => m.id === "hashmap")!;
    hashmap.priority += 7;
    const gone = [
      compute.id,
      ...compute.fields.map((f) => f.id),
      ...compute.mappings.map((m) => m.id),
      ...compute.thresholds.map((t) => t.id),
      ...compute.fields.flatMap((f) => [...f.mappings, ...f.thresholds].map((r) => r.id)),
    ];
    const result = await apply(desired);
    expect(result.counts).toMatchObject({ create: 0, update: 1, delete: gone.length });
    const trail = await events(Number(before.body.revision));
    expect(
      trail
        .filter((e) => e.operation === "delete")
        .map((e) => e.resource_id)
        .sort(),
    ).toEqual([...gone].sort());
    // Leaves before their parents.
    expect(trail.at(-2)).toMatchObject({
      operation: "delete",
      resource_type: "service",
      resource_id: compute.id,
    });
    expect(trail.at(-1)).toMatchObject({
      operation: "update",
      resource_type: "module",
      resource_id: "hashmap",
    });
    expect(trail.at(-1).after.priority).toBe(hashmap.priority);
    expect((await api.get(`${HASHMAP}/services/${compute.id}`)).status).toBe(404);
    const after = await exported();
    expect(after.body).toEqual({ ...desired, revision: result.revision });
    // The read snapshot sees the change at once.
    const modules = await api.get(`/v1/rating/modules/hashmap`);
    expect(modules.body.priority).toBe(hashmap.priority);
  });

  it("leaves soft-deleted rules out of the rule set, and refuses to create one again by its id (409)", async () => {
    const before = await exported();
    const field = (before.body as Doc).services.flatMap((s) => s.fields)[0]!;
    const rule = field.mappings[0]!;
    const deleted = await api.delete(`${HASHMAP}/mappings/${rule.id}`);
    expect(deleted.status, deleted.text).toBe(204);
    const after = await exported();
    expect(after.text).not.toContain(rule.id);
    // The old file still has it: its plan re-creates it, the apply refuses the id.
    const plan = await api.post("/v1/ratecard/ruleset/plan", before.body);
    expect(plan.body.operations.map((op: any) => [op.op, op.id])).toEqual([["create", rule.id]]);
    expectFault(
      await api.post(APPLY, { ...before.body, revision: after.body.revision }),
      409,
      `The document creates an object with the id of a deleted one (mapping ${rule.id}): ` +
        "a deleted rule or script keeps its id; give the new one another id.",
    );
    expect((await exported()).text).toBe(after.text);
  });

  it("reads a YAML body, and answers the same over RPC", async () => {
    const yaml = await (await fetch(new URL(`${RULESET}?format=yaml`, server.baseUrl))).text();
    const edited = yaml.replace(/cost: "[^"]+"/, 'cost: "0.123456"');
    expect(edited).not.toBe(yaml);
    const answer = await api.post(APPLY, edited, {
      headers: { "Content-Type": "application/yaml" },
    });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.counts).toMatchObject({ create: 0, update: 1, delete: 0 });
    const { body } = await exported();
    const overRpc = await rpc(server.baseUrl, "ruleset.applyDocument", body, { type: "mutation" });
    expect(overRpc.status, JSON.stringify(overRpc.body)).toBe(200);
    expect(overRpc.data).toMatchObject({
      planned_revision: body.revision,
      revision: body.revision,
    });
  });
  it("plans a changed end as an update and applies it; a document without the lifecycle keeps it", async () => {
    // A service of its own, with an ended rule, a scheduled one and a script.
    const start = (await exported()).body as Doc;
    const ended = mapping("ended", "0.5", ENDED);
    const scheduled = mapping("scheduled", "0.6", SCHEDULED);
    const withRules = structuredClone(start);
    withRules.services.push({
      id: id(),
      name: "lifecycle",
      mappings: [],
      thresholds: [],
      fields: [{ id: id(), name: "kind", mappings: [ended, scheduled], thresholds: [] }],
    });
    await apply(withRules);

    const desired = structuredClone((await exported()).body) as Doc;
    const field = desired.services.find((s) => s.name === "lifecycle")!.fields[0]!;
    field.mappings.find((m) => m.id === ended.id)!.end = "2026-07-31"; // 23:59:59 that day
    const plan = await api.post("/v1/ratecard/ruleset/plan", desired);
    expect(plan.status, plan.text).toBe(200);
    expect(plan.body.operations).toEqual([
      expect.objectContaining({
        op: "update",
        kind: "mapping",
        id: ended.id,
        changes: ["end"],
        before: expect.objectContaining({ end: ENDED.end }),
        after: expect.objectContaining({ end: "2026-07-31T23:59:59", start: ended.start }),
      }),
    ]);
    const result = await apply(desired);
    expect(result.counts).toMatchObject({ create: 0, update: 1, delete: 0 });
    const rule = await api.get(`${HASHMAP}/mappings/${ended.id}`);
    expect(rule.body).toMatchObject({ end: "2026-07-31T23:59:59", updated_by: "noauth" });

    // A version-1 document (an export from before the lifecycle): no lifecycle key, nothing to do.
    const strip = (
      entry: Record<string, unknown>,
      keys = ["start", "end", "name", "description"],
    ) => {
      for (const key of keys) delete entry[key];
    };
    const old = structuredClone<any>((await exported()).body);
    old.version = 1;
    for (const service of old.services)
      for (const parent of [service, ...service.fields])
        [...parent.mappings, ...parent.thresholds].forEach((r: any) => strip(r));
    old.scripts.forEach((script: any) => strip(script, ["start", "end", "description"]));
    const oldPlan = await api.post("/v1/ratecard/ruleset/plan", old);
    expect(oldPlan.status, oldPlan.text).toBe(200);
    expect(oldPlan.body.operations).toEqual([]);
    // A new rule without them takes the defaults: starts now, a generated name.
    const added = mapping("added", "1");
    strip(added as unknown as Record<string, unknown>);
    old.services.find((s: any) => s.name === "lifecycle").fields[0].mappings.push(added);
    await apply(old);
    const created = await api.get(`${HASHMAP}/mappings/${added.id}`);
    expect(created.body.start).toBe(created.body.created_at);
    expect(created.body.name).toMatch(/^[0-9a-f]{32}$/);
    expect(created.body).toMatchObject({ end: null, description: null });
    const after = (await exported()).body as Doc;
    expect(after.version).toBe(2);
    const kept = after.services.find((s) => s.name === "lifecycle")!.fields[0]!.mappings;
    expect(kept.find((m) => m.id === ended.id)).toMatchObject({
      end: "2026-07-31T23:59:59",
      name: ended.name,
      description: ENDED.description,
    });
    expect(kept.find((m) => m.id === scheduled.id)).toMatchObject(SCHEDULED);
  });
});

describe("apply policy (local accounts)", () => {
  const local = localAccountsServer("ratecard-ruleset-apply-policy-");
  let readerToken: string;
  let adminToken: string;

  beforeAll(async () => {
    const tokenFor = async (session: Session) => {
      const answer = await rpc(
        local.baseUrl,
        "accounts.tokens.create",
        { name: "ci", expiresInDays: 1 },
        { type: "mutation", headers: sessionHeaders(session) },
      );
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      return answer.data.secret as string;
    };
    readerToken = await tokenFor(local.reader);
    adminToken = await tokenFor(local.admin);
  });

  it("refuses a reader's token (403) and applies with an admin's, recording who", async () => {
    const api = createClient(local.baseUrl);
    const asReader = { headers: { "X-Auth-Token": readerToken } };
    const asAdmin = { headers: { "X-Auth-Token": adminToken } };
    const current = await api.get(RULESET, asReader);
    expect(current.status, current.text).toBe(200);
    const document = {
      ...sampleDocument(),
      modules: current.body.modules,
      revision: current.body.revision,
    };
    // A rule without a name in the document gets a generated one, as over REST.
    delete (document.services[0]!.fields[0]!.mappings[1] as Partial<Mapping>).name;
    const refused = await api.post(APPLY, document, asReader);
    expectFault(refused, 403, /ratecard:apply_ruleset/);
    const overRpc = await rpc(local.baseUrl, "ruleset.applyDocument", document, {
      type: "mutation",
      headers: sessionHeaders(local.reader),
    });
    expect(overRpc.code).toBe("FORBIDDEN");
    expect((await api.get(RULESET, asReader)).text).toBe(current.text);

    const applied = await api.post(APPLY, document, asAdmin);
    expect(applied.status, applied.text).toBe(200);
    const trail = await api.get("/v1/ratecard/audit", { ...asAdmin, query: { limit: "1" } });
    expect(trail.body.events[0]).toMatchObject({ user_name: "admin", resource_type: "script" });
    // The lifecycle's columns as a create over REST sets them: who, and a rule's generated name.
    const small = document.services[0]!.fields[0]!.mappings[1]!;
    const mapping = await api.get(`${HASHMAP}/mappings/${small.id}`, asAdmin);
    expect(mapping.status, mapping.text).toBe(200);
    expect(mapping.body.name).toMatch(/^[0-9a-f]{32}$/);
    expect(mapping.body.created_by).toBe(trail.body.events[0].user_id);
    expect(mapping.body.deleted).toBeNull();
  });
});
