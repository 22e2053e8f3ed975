import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import YAML from "yaml";
import { localAccountsServer, rpc, type Session, sessionHeaders } from "./support/auth.js";
import { createClient, HASHMAP, PYSCRIPTS, type Client } from "./support/client.js";
import { expectFault, seeder } from "./support/hashmap.js";
import { startServer, type TestServer } from "./support/server.js";

// The rule set as one document (issue 14, part 1) over real HTTP: GET /v1/ratecard/ruleset (JSON
// or YAML, byte-identical for an unchanged rule set, ETag/304) and POST /v1/ratecard/ruleset/plan
// (the operations a document would make; an invalid one refused with every error's JSON path).

const RULESET = "/v1/ratecard/ruleset";
const PLAN = "/v1/ratecard/ruleset/plan";

describe("export and plan (noauth)", () => {
  let server: TestServer;
  let api: Client;
  type Seeded = "compute" | "volume" | "flavor" | "group" | "small" | "large" | "perGb" | "bulk";
  const ids = {} as Record<Seeded | "script", string>;

  beforeAll(async () => {
    server = await startServer();
    api = createClient(server.baseUrl);
    const seed = seeder(api);
    // Seeded through CloudKitty's REST API, as an operator's client would.
    ids.compute = (await seed.service("compute")).service_id;
    ids.volume = (await seed.service("volume.size")).service_id;
    ids.flavor = (await seed.field(ids.compute, "flavor")).field_id;
    ids.group = (await seed.group("instance_uptime")).group_id;
    ids.small = (
      await seed.mapping({
        field_id: ids.flavor,
        value: "m1.small",
        type: "flat",
        cost: "0.0125",
        group_id: ids.group,
      })
    ).mapping_id;
    ids.large = (
      await seed.mapping({
        field_id: ids.flavor,
        value: "m1.large",
        type: "flat",
        cost: "0.50",
        tenant_id: "tenant-a",
      })
    ).mapping_id;
    ids.perGb = (
      await seed.mapping({ service_id: ids.volume, type: "rate", cost: "0.001" })
    ).mapping_id;
    ids.bulk = (
      await seed.threshold({ service_id: ids.volume, level: "100.0", type: "rate", cost: "0.9" })
    ).threshold_id;
    const script = await api.post(`${PYSCRIPTS}/scripts`, {
      name: "discount",
      data: "a = 1\n",
    });
    expect(script.status, script.text).toBe(201);
    ids.script = script.body.script_id;
  });
  afterAll(async () => {
    await server?.stop();
  });

  async function newestEventId(): Promise<number> {
    const answer = await api.get("/v1/ratecard/audit", { query: { limit: "1" } });
    expect(answer.status, answer.text).toBe(200);
    return answer.body.events[0].event_id;
  }

  it("exports the seeded rule set as the canonical document, twice byte-identical", async () => {
    const first = await api.get(RULESET);
    expect(first.status, first.text).toBe(200);
    expect(first.headers.get("content-type")).toBe("application/json");
    const modules = (await api.get("/v1/rating/modules")).body.modules
      .map((m: any) => ({ id: m.module_id, enabled: m.enabled, priority: m.priority }))
      .sort((a: any, b: any) => (a.id < b.id ? -1 : 1));
    const revision = String(await newestEventId());
    // Each rule's and the script's lifecycle as the REST API shows it (start: its creation).
    const lifecycle = async (path: string, name = true) => {
      const { body } = await api.get(path);
      return {
        start: body.start,
        end: body.end,
        ...(name ? { name: body.name } : {}),
        description: body.description,
      };
    };
    const mappingLife = (id: string) => lifecycle(`${HASHMAP}/mappings/${id}`);
    expect((await mappingLife(ids.small)).start).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d/);
    expect(first.body).toEqual({
      format: "ratecard.ruleset",
      version: 2,
      revision,
      modules,
      groups: [{ id: ids.group, name: "instance_uptime" }],
      services: [
        {
          id: ids.compute,
          name: "compute",
          mappings: [],
          thresholds: [],
          fields: [
            {
              id: ids.flavor,
              name: "flavor",
              mappings: [
                {
                  id: ids.large,
                  value: "m1.large",
                  type: "flat",
                  cost: "0.5",
                  tenant_id: "tenant-a",
                  group_id: null,
                  ...(await mappingLife(ids.large)),
                },
                {
                  id: ids.small,
                  value: "m1.small",
                  type: "flat",
                  cost: "0.0125",
                  tenant_id: null,
                  group_id: ids.group,
                  ...(await mappingLife(ids.small)),
                },
              ],
              thresholds: [],
            },
          ],
        },
        {
          id: ids.volume,
          name: "volume.size",
          mappings: [
            {
              id: ids.perGb,
              value: null,
              type: "rate",
              cost: "0.001",
              tenant_id: null,
              group_id: null,
              ...(await mappingLife(ids.perGb)),
            },
          ],
          thresholds: [
            {
              id: ids.bulk,
              level: "100",
              type: "rate",
              cost: "0.9",
              tenant_id: null,
              group_id: null,
              ...(await lifecycle(`${HASHMAP}/thresholds/${ids.bulk}`)),
            },
          ],
          fields: [],
        },
      ],
      scripts: [
        {
          id: ids.script,
          name: "discount",
          data: "a = 1\n",
          ...(await lifecycle(`${PYSCRIPTS}/scripts/${ids.script}`, false)),
        },
      ],
    });
    // The file a team keeps in git: 2-space indent, a trailing newline.
    expect(first.text).toBe(`${JSON.stringify(first.body, null, 2)}\n`);
    const second = await api.get(RULESET);
    expect(second.text).toBe(first.text);
    expect(second.headers.get("etag")).toBe(`"ruleset.${revision}.json"`);
  });

  it("answers ?format=yaml with the same content in YAML, and 304 to a matching If-None-Match", async () => {
    const json = await api.get(RULESET);
    const yaml = await fetch(new URL(`${RULESET}?format=yaml`, server.baseUrl));
    expect(yaml.status).toBe(200);
    expect(yaml.headers.get("content-type")).toBe("application/yaml");
    const text = await yaml.text();
    expect(YAML.parse(text)).toEqual(json.body);
    const again = await fetch(new URL(`${RULESET}?format=yaml`, server.baseUrl));
    expect(await again.text()).toBe(text);
    const etag = yaml.headers.get("etag")!;
    expect(etag).not.toBe(json.headers.get("etag"));

    const unchanged = await fetch(new URL(`${RULESET}?format=yaml`, server.baseUrl), {
      headers: { "If-None-Match": etag },
    });
    expect(unchanged.status).toBe(304);
    expect(await unchanged.text()).toBe("");
    const bogus = await api.get(RULESET, { query: { format: "xml" } });
    expect(bogus.status).toBe(400);
  });

  it("moves the revision and the ETag with every change", async () => {
    const before = await api.get(RULESET);
    const group = await seeder(api).group();
    const after = await api.get(RULESET, {
      headers: { "If-None-Match": before.headers.get("etag")! },
    });
    expect(after.status).toBe(200);
    expect(Number(after.body.revision)).toBeGreaterThan(Number(before.body.revision));
    expect(after.headers.get("etag")).not.toBe(before.headers.get("etag"));
    expect(await api.delete(`${HASHMAP}/groups/${group.group_id}`)).toMatchObject({ status: 204 });
  });

  it("keeps its revision through changes outside the rule set (a CloudKitty target registered)", async () => {
    const before = await api.get(RULESET);
    const target = await api.post("/v1/ratecard/targets", {
      name: `outside-${Date.now()}`,
      mode: "import-source",
      connection: { kind: "noauth", url: "http://127.0.0.1:9/" },
    });
    expect(target.status, target.text).toBe(201);
    const after = await api.get(RULESET, {
      headers: { "If-None-Match": before.headers.get("etag")! },
    });
    // The change is in the audit trail, but a plan made before it still applies.
    expect(after.status).toBe(304);
    expect((await api.get(RULESET)).body.revision).toBe(before.body.revision);
  });

  it("plans nothing for the exported document", async () => {
    const exported = await api.get(RULESET);
    const plan = await api.post(PLAN, exported.body);
    expect(plan.status, plan.text).toBe(200);
    expect(plan.body.operations).toEqual([]);
    expect(plan.body.errors).toEqual([]);
    expect(plan.body.revision).toBe(exported.body.revision);
    expect(plan.body.counts).toMatchObject({ create: 0, update: 0, delete: 0 });
  });

  it("plans exactly the changes of an edited document, and changes nothing", async () => {
    const exported = await api.get(RULESET);
    const document = structuredClone(exported.body);
    const flavor = document.services[0].fields[0];
    flavor.mappings[1].cost = "0.02";
    const volume = document.services[1];
    volume.thresholds = [];
    const created = randomUUID();
    flavor.mappings.push({
      id: created,
      value: "m1.tiny",
      type: "flat",
      cost: "0.001",
      tenant_id: null,
      group_id: null,
    });
    const plan = await api.post(PLAN, document);
    expect(plan.status, plan.text).toBe(200);
    expect(
      plan.body.operations.map((op: any) => [op.op, op.kind, op.id, op.changes ?? null]),
    ).toEqual([
      ["delete", "threshold", ids.bulk, null],
      ["update", "mapping", ids.small, ["cost"]],
      ["create", "mapping", created, null],
    ]);
    const update = plan.body.operations[1];
    expect(update.before).toMatchObject({ cost: "0.0125" });
    expect(update.after).toMatchObject({ cost: "0.02" });
    expect(plan.body.counts).toMatchObject({ create: 1, update: 1, delete: 1 });
    expect((await api.get(RULESET)).text).toBe(exported.text);
  });

  it("refuses a malformed document with every error's JSON path, changing nothing", async () => {
    const exported = await api.get(RULESET);
    const document = structuredClone(exported.body);
    document.services[0].fields[0].mappings[0].type = "bogus";
    document.services[1].mappings[0].cots = "1";
    document.groups[0].id = "not-a-uuid";
    const refused = await api.post(PLAN, document);
    expectFault(refused, 400, /^Invalid rule set document \(\d+ errors\): /);
    const message: string = refused.body.faultstring;
    expect(message).toContain("services[0].fields[0].mappings[0].type");
    expect(message).toContain("services[1].mappings[0]");
    expect(message).toContain("groups[0].id");
    expectFault(await api.post(PLAN, "[1]"), 400, "Request body must be a JSON object");
    // As in a file: a JSON number is refused where a decimal string belongs.
    const numeric = structuredClone(exported.body);
    numeric.services[1].thresholds[0].level = 100;
    expectFault(
      await api.post(PLAN, numeric),
      400,
      /^Invalid rule set document \(1 error\): services\[1\]\.thresholds\[0\]\.level: /,
    );
    expect((await api.get(RULESET)).text).toBe(exported.text);
  });

  it("reads a YAML document (application/yaml) as the export gives it", async () => {
    const yaml = await (await fetch(new URL(`${RULESET}?format=yaml`, server.baseUrl))).text();
    const headers = { "Content-Type": "application/yaml" };
    const plan = await api.post(PLAN, yaml, { headers });
    expect(plan.status, plan.text).toBe(200);
    expect(plan.body.operations).toEqual([]);

    const edited = yaml.replace('cost: "0.0125"', 'cost: "0.02"');
    expect(edited).not.toBe(yaml);
    const changed = await api.post(PLAN, edited, { headers });
    expect(changed.body.operations.map((op: any) => [op.op, op.id])).toEqual([
      ["update", ids.small],
    ]);

    // A YAML number would go through a binary float: refused with its path.
    const numeric = await api.post(PLAN, yaml.replace('cost: "0.0125"', "cost: 0.0125"), {
      headers,
    });
    expectFault(numeric, 400, /services\[0\]\.fields\[0\]\.mappings\[1\]\.cost: /);
    expectFault(
      await api.post(PLAN, "a: 1\na: 2\n", { headers }),
      400,
      /^Request is not in valid YAML format: /,
    );
  });

  it("serves the same over RPC", async () => {
    const exported = await api.get(RULESET);
    const overRpc = await rpc(server.baseUrl, "ruleset.export", undefined);
    expect(overRpc.status).toBe(200);
    expect(overRpc.data).toEqual(exported.body);
    const plan = await rpc(server.baseUrl, "ruleset.plan", exported.body, { type: "mutation" });
    expect(plan.status).toBe(200);
    expect(plan.data.operations).toEqual([]);
  });
});

describe("policy (local accounts)", () => {
  const local = localAccountsServer("ratecard-ruleset-policy-");

  const as = (session: Session) => ({ headers: { "X-Auth-Token": session.token } });

  it("lets a reader export and plan (ratecard:export_ruleset), over REST and RPC", async () => {
    const api = createClient(local.baseUrl);
    const exported = await api.get(RULESET, as(local.reader));
    expect(exported.status, exported.text).toBe(200);
    const plan = await api.post(PLAN, exported.body, as(local.reader));
    expect(plan.status, plan.text).toBe(200);
    const overRpc = await rpc(local.baseUrl, "ruleset.export", undefined, {
      headers: sessionHeaders(local.reader),
    });
    expect(overRpc.status).toBe(200);
    expect(overRpc.data).toEqual(exported.body);
  });

  it("refuses a caller without a token", async () => {
    const api = createClient(local.baseUrl);
    expect((await api.get(RULESET)).status).toBe(401);
    expect((await api.post(PLAN, {})).status).toBe(401);
  });
});
