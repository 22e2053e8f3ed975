import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient, HASHMAP, type Client } from "./support/client.js";
import {
  expectFault,
  RULE_KINDS,
  seeder,
  snapshotHashmap,
  uniqueName,
  UNKNOWN_ID,
  type Seeder,
} from "./support/hashmap.js";
import { startServer, type TestServer } from "./support/server.js";

let server: TestServer;
let api: Client;
let seed: Seeder;
beforeAll(async () => {
  server = await startServer();
  api = createClient(server.baseUrl);
  seed = seeder(api);
});
afterAll(async () => {
  await server.stop();
});

/** A group holding one mapping and one threshold of a fresh field. */
async function groupWithRules() {
  const group = await seed.group();
  const { fieldId } = await seed.parents();
  const mapping = await seed.mapping({
    field_id: fieldId,
    value: "m1.small",
    group_id: group.group_id,
  });
  const threshold = await seed.threshold({
    field_id: fieldId,
    level: "10",
    group_id: group.group_id,
  });
  return { group, fieldId, mapping, threshold };
}

async function ruleStatus(rule: { mapping_id?: string; threshold_id?: string }) {
  const path = rule.mapping_id ? `mappings/${rule.mapping_id}` : `thresholds/${rule.threshold_id}`;
  return api.get(`${HASHMAP}/${path}`);
}

describe("H/groups", () => {
  it("creates a group with 201 and Location, lists it and gets it", async () => {
    const name = uniqueName("instance-uptime");
    const answer = await api.post(`${HASHMAP}/groups/`, { name });
    expect(answer.status).toBe(201);
    expect(Object.keys(answer.body)).toEqual(["group_id", "name"]);
    expect(answer.headers.get("location")).toBe(
      `${server.baseUrl}${HASHMAP}/groups/${answer.body.group_id}`,
    );
    expect((await api.get(`${HASHMAP}/groups/${answer.body.group_id}`)).body).toEqual({
      group_id: answer.body.group_id,
      name,
    });
    expect((await api.get(`${HASHMAP}/groups`)).body.groups).toContainEqual(answer.body);
  });

  it("refuses a duplicate name with 409 naming the existing group", async () => {
    const existing = await seed.group();
    expectFault(
      await api.post(`${HASHMAP}/groups`, { name: existing.name }),
      409,
      `Group ${existing.name} already exists (UUID: ${existing.group_id})`,
    );
  });

  it("answers 404 for an unknown group id in the path", async () => {
    expectFault(
      await api.get(`${HASHMAP}/groups/${UNKNOWN_ID}`),
      404,
      `No such group: None (UUID: ${UNKNOWN_ID})`,
    );
    expectFault(
      await api.delete(`${HASHMAP}/groups/${UNKNOWN_ID}`),
      404,
      `No such group: None (UUID: ${UNKNOWN_ID})`,
    );
  });
});

describe("H/groups/mappings and H/groups/thresholds", () => {
  it.each(RULE_KINDS)(
    "lists the $collection of a group, and only those",
    async ({ collection }) => {
      const { group, mapping, threshold } = await groupWithRules();
      const { fieldId } = await seed.parents();
      await seed.mapping({ field_id: fieldId, value: "outside" });
      await seed.threshold({ field_id: fieldId, level: "1" });
      const answer = await api.get(`${HASHMAP}/groups/${collection}`, {
        query: { group_id: group.group_id },
      });
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual({
        [collection]: [collection === "mappings" ? mapping : threshold],
      });
    },
  );

  it.each(RULE_KINDS)("lists no $collection for an unknown group", async ({ collection }) => {
    const answer = await api.get(`${HASHMAP}/groups/${collection}`, {
      query: { group_id: "unknown" },
    });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ [collection]: [] });
  });

  it.each(RULE_KINDS)("needs group_id to list $collection", async ({ collection }) => {
    expectFault(
      await api.get(`${HASHMAP}/groups/${collection}`),
      400,
      'Missing argument: "group_id"',
    );
  });
});

describe("DELETE H/groups/{id}", () => {
  it.each([
    ["recursive=true", { recursive: "true" }],
    ["recursive=True (the CLI's word)", { recursive: "True" }],
    ["recursive=1", { recursive: "1" }],
    ["recursive=yes", { recursive: "yes" }],
  ])("with %s deletes the group with its mappings and thresholds", async (_, query) => {
    const { group, mapping, threshold } = await groupWithRules();
    expect((await api.delete(`${HASHMAP}/groups/${group.group_id}`, { query })).status).toBe(204);
    expect((await api.get(`${HASHMAP}/groups/${group.group_id}`)).status).toBe(404);
    expect((await ruleStatus(mapping)).status).toBe(404);
    expect((await ruleStatus(threshold)).status).toBe(404);
  });

  // CloudKitty reads any non-empty value as true, so its recursive=false deletes the rules.
  it.each([
    ["no recursive", {}],
    ["recursive=false", { recursive: "false" }],
    ["recursive=False", { recursive: "False" }],
    ["recursive=0", { recursive: "0" }],
    ["recursive=no", { recursive: "no" }],
    ["recursive= (empty)", { recursive: "" }],
  ])("with %s keeps its rules, with no group", async (_, query) => {
    const { group, mapping, threshold } = await groupWithRules();
    expect((await api.delete(`${HASHMAP}/groups/${group.group_id}`, { query })).status).toBe(204);
    expect((await api.get(`${HASHMAP}/groups/${group.group_id}`)).status).toBe(404);
    expect((await ruleStatus(mapping)).body).toEqual({ ...mapping, group_id: null });
    expect((await ruleStatus(threshold)).body).toEqual({ ...threshold, group_id: null });
  });

  it("refuses a recursive value that is not a boolean word, and deletes nothing", async () => {
    const { group } = await groupWithRules();
    const before = await snapshotHashmap(api);
    expectFault(
      await api.delete(`${HASHMAP}/groups/${group.group_id}`, { query: { recursive: "maybe" } }),
      400,
      "Invalid input for field/attribute recursive. Value: 'maybe'. Expected true or false.",
    );
    expect(await snapshotHashmap(api)).toEqual(before);
  });

  it.each(RULE_KINDS)(
    "refuses with 409 a non-recursive delete that would make two $collection identical, and changes nothing",
    async (kind) => {
      const group = await seed.group();
      const parents = await seed.parents();
      await seed.rule(kind, kind.identity(parents, "field", "7"));
      await seed.rule(kind, {
        ...kind.identity(parents, "field", "7"),
        group_id: group.group_id,
      });
      const before = await snapshotHashmap(api);
      const answer = await api.delete(`${HASHMAP}/groups/${group.group_id}`, {
        query: { recursive: "false" },
      });
      expectFault(
        answer,
        409,
        new RegExp(`^Group ${group.group_id} cannot be deleted without its rules`),
      );
      expect(await snapshotHashmap(api)).toEqual(before);
      expect(
        (await api.delete(`${HASHMAP}/groups/${group.group_id}`, { query: { recursive: "true" } }))
          .status,
      ).toBe(204);
    },
  );
});
