import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient, HASHMAP, PYSCRIPTS, type Client } from "./support/client.js";
import {
  expectCreated,
  expectFault,
  MAPPINGS,
  RULE_KINDS,
  seeder,
  THRESHOLDS,
  uniqueName,
  type RuleKind,
  type Seeder,
} from "./support/hashmap.js";
import { signIn } from "./support/auth.js";
import { startServer, type TestServer } from "./support/server.js";

// CloudKitty master's rule lifecycle (docs/lifecycle.md) over real HTTP, in both update modes:
// the fields, start/end rules, soft delete and re-creation, the list filters, and the audit trail.

const SCRIPTS = `${PYSCRIPTS}/scripts`;

/** CloudKitty writes moments as UTC without an offset; `Z` makes them readable by Date. */
const at = (text: string) => new Date(`${text}Z`).getTime();
/** A moment `ms` from now as the API takes it (ISO 8601, UTC, no offset). */
const fromNow = (ms: number) => new Date(Date.now() + ms).toISOString().replace("Z", "");
const day = (ms: number) => new Date(Date.now() + ms).toISOString().slice(0, 10);
const DAY = 86_400_000;

/** How the API writes a moment it was given as `fromNow` wrote it: microseconds, none if zero. */
const written = (text: string) => text.replace(/\.000$/, "").replace(/\.(\d{3})$/, ".$1000");

/** Python's str(datetime) of a CloudKitty moment, as the messages print it. */
const pythonDate = (text: string) => text.replace("T", " ");

const RUNNING =
  /^You are allowed to update only the attribute \[end\] as this rule is already running as it started on \[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(\.\d{6})?\]$/;

async function eventsOf(api: Client, resourceId: string) {
  const answer = await api.get("/v1/ratecard/audit", { query: { resource_id: resourceId } });
  expect(answer.status, answer.text).toBe(200);
  return answer.body.events as any[];
}

describe("in-place mode (the default, CloudKitty 17's edits)", () => {
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

  describe.each(RULE_KINDS.map((kind) => [kind.collection, kind] as const))(
    "%s",
    (collection, kind: RuleKind) => {
      const path = `${HASHMAP}/${collection}`;
      const body = async (key: string, extra: Record<string, unknown> = {}) => ({
        ...kind.identity(await seed.parents(), "field", key),
        cost: "1",
        ...extra,
      });

      it("answers CloudKitty master's fields: start is the creation time, a 32-digit name, the creator", async () => {
        const before = Date.now();
        const rule = expectCreated(await api.post(path, await body("1")));
        expect(rule).toMatchObject({
          end: null,
          description: null,
          deleted: null,
          created_by: "noauth",
          updated_by: null,
          deleted_by: null,
        });
        expect(rule.start).toBe(rule.created_at);
        expect(rule.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{6})?$/);
        expect(at(rule.created_at)).toBeGreaterThanOrEqual(before - 1);
        expect(at(rule.created_at)).toBeLessThanOrEqual(Date.now() + 1);
        expect(rule.name).toMatch(/^[0-9a-f]{32}$/);
        expect((await api.get(`${path}/${rule[kind.idKey]}`)).body).toEqual(rule);
      });

      it("keeps a given start, end, name and description", async () => {
        const start = fromNow(DAY);
        const end = fromNow(2 * DAY);
        const rule = expectCreated(
          await api.post(
            path,
            await body("2", { start, end, name: "n-" + collection, description: "Gold tier" }),
          ),
        );
        expect(rule).toMatchObject({
          start: written(start),
          end: written(end),
          name: "n-" + collection,
          description: "Gold tier",
        });
        // A name is held by one rule not deleted at a time.
        expectFault(
          await api.post(path, await body("3", { name: "n-" + collection })),
          409,
          `${kind === MAPPINGS ? "Mapping" : "Threshold"} n-${collection} already exists (UUID: ${rule[kind.idKey]})`,
        );
      });

      it("reads a date-only end as 23:59:59 that day, and a date-only start as its midnight", async () => {
        const rule = expectCreated(
          await api.post(path, await body("4", { start: day(DAY), end: day(3 * DAY) })),
        );
        expect(rule.start).toBe(`${day(DAY)}T00:00:00`);
        expect(rule.end).toBe(`${day(3 * DAY)}T23:59:59`);
      });

      it("takes an end equal to the start, and refuses one before it", async () => {
        const start = `${day(DAY)}T10:00:00`;
        expectCreated(await api.post(path, await body("5", { start, end: start })));
        expectFault(
          await api.post(path, await body("6", { start, end: `${day(DAY)}T09:59:59` })),
          400,
          `Cannot create a rule with start after end. start=[${day(DAY)} 10:00:00] end=[${day(DAY)} 09:59:59].`,
        );
      });

      it("refuses a start in the past unless ?force=true, and takes one just ahead", async () => {
        const past = `${day(-DAY)}T12:00:00`;
        expectFault(
          await api.post(path, await body("7", { start: past })),
          400,
          new RegExp(
            `^Cannot create a rule with start in the past\\. start=\\[${day(-DAY)} 12:00:00\\] current time=\\[[-0-9 :.]+\\]\\.$`,
          ),
        );
        const forced = expectCreated(
          await api.post(path, await body("7", { start: past, end: `${day(-DAY)}T13:00:00` }), {
            query: { force: "true" },
          }),
        );
        expect(forced).toMatchObject({
          start: `${day(-DAY)}T12:00:00`,
          end: `${day(-DAY)}T13:00:00`,
        });
        expectCreated(await api.post(path, await body("8", { start: fromNow(2_000) })));
      });

      it("refuses dates it cannot read with 400 in CloudKitty's fault shape", async () => {
        for (const [key, value] of [
          ["start", "tomorrow"],
          ["end", "2026-02-30"],
          ["start", "2026-13-01T00:00:00"],
          ["end", 42],
        ] as const) {
          const answer = await api.post(path, await body("9", { [key]: value }));
          expectFault(answer, 400, new RegExp(`^Invalid input for field/attribute ${key}\\.`));
        }
      });

      it("soft-deletes: GET shows it deleted, lists hide it, and an identical rule can be made again", async () => {
        const parents = await seed.parents();
        const identity = { ...kind.identity(parents, "field", "10"), cost: "1" };
        const first = expectCreated(await api.post(path, identity));
        // Identical rules collide while the first is not deleted, whatever their periods.
        expectFault(await api.post(path, identity), 409, /already exists/);
        expectFault(
          await api.post(path, { ...identity, start: fromNow(DAY), end: fromNow(2 * DAY) }),
          409,
          /already exists/,
        );
        const id = first[kind.idKey];
        expect((await api.delete(`${path}/${id}`)).status).toBe(204);
        const shown = (await api.get(`${path}/${id}`)).body;
        expect(shown).toMatchObject({ deleted: expect.any(String), deleted_by: "noauth" });
        expect(at(shown.deleted)).toBeLessThanOrEqual(Date.now() + 1);
        const listed = async (query: Record<string, string> = {}) =>
          (await api.get(path, { query: { field_id: parents.fieldId, ...query } })).body[
            collection
          ].map((rule: any) => rule[kind.idKey]);
        expect(await listed()).toEqual([]);
        expect(await listed({ deleted: "true" })).toEqual([id]);
        // Deleted once, then it is not found for a change or a second delete.
        expectFault(await api.delete(`${path}/${id}`), 404, /^No such/);
        expectFault(
          await api.put(`${path}/${id}`, { ...kind.key("10"), cost: "2" }),
          404,
          /^No such/,
        );
        // The same rule again, and even the same name.
        const again = expectCreated(await api.post(path, { ...identity, name: first.name }));
        expect(again[kind.idKey]).not.toBe(id);
        expect(await listed()).toEqual([again[kind.idKey]]);
        expect(await listed({ deleted: "true" })).toEqual([id, again[kind.idKey]]);
      });

      it("records a soft delete as an update that sets deleted", async () => {
        const rule = expectCreated(await api.post(path, await body("11")));
        await api.delete(`${path}/${rule[kind.idKey]}`);
        const [deletion, creation] = await eventsOf(api, rule[kind.idKey]);
        expect(creation).toMatchObject({ operation: "create", after: { created_by: "noauth" } });
        expect(deletion).toMatchObject({
          operation: "update",
          resource_type: kind === MAPPINGS ? "mapping" : "threshold",
          user_id: "noauth",
          before: { deleted: null, deleted_by: null },
          after: { deleted: expect.any(String), deleted_by: "noauth" },
        });
        expect(deletion.after.revision).toBe(deletion.before.revision + 1);
      });

      it("edits a rule in force (CloudKitty 17), keeping start, end and description unless given", async () => {
        const rule = expectCreated(
          await api.post(path, await body("12", { end: day(5 * DAY), description: "kept" })),
        );
        const edited = await api.put(`${path}/${rule[kind.idKey]}`, {
          ...kind.key("12"),
          cost: "7",
        });
        expect(edited.status, edited.text).toBe(200);
        expect(edited.body).toMatchObject({
          cost: "7.0000000000000000000000000000",
          start: rule.start,
          end: rule.end,
          description: "kept",
          name: rule.name,
          updated_by: "noauth",
        });
        // null removes; a new start may not be in the past; the end not before the start.
        const cleared = await api.put(`${path}/${rule[kind.idKey]}`, {
          ...kind.key("12"),
          cost: "7",
          end: null,
          description: null,
        });
        expect(cleared.body).toMatchObject({ end: null, description: null });
        expectFault(
          await api.put(`${path}/${rule[kind.idKey]}`, {
            ...kind.key("12"),
            cost: "7",
            start: `${day(-2 * DAY)}T00:00:00`,
          }),
          400,
          /^Cannot create a rule with start in the past\./,
        );
        expectFault(
          await api.put(`${path}/${rule[kind.idKey]}`, {
            ...kind.key("12"),
            cost: "7",
            end: `${day(-DAY)}T00:00:00`,
          }),
          400,
          /^Cannot create a rule with start after end\./,
        );
      });

      it("filters lists as CloudKitty master does", async () => {
        const parents = await seed.parents();
        const make = (
          key: string,
          extra: Record<string, unknown> = {},
          query?: Record<string, string>,
        ) =>
          api
            .post(
              path,
              { ...kind.identity(parents, "field", key), cost: "1", ...extra },
              query ? { query } : {},
            )
            .then(expectCreated);
        const running = await make("1", { description: "Premium GOLD tier" });
        const scheduled = await make("2", { start: fromNow(3 * DAY), end: fromNow(4 * DAY) });
        const ended = await make(
          "3",
          { start: `${day(-3 * DAY)}T00:00:00`, end: `${day(-2 * DAY)}T00:00:00` },
          { force: "true" },
        );
        const deleted = await make("4");
        await api.delete(`${path}/${deleted[kind.idKey]}`);
        const edited = await make("5");
        await api.put(`${path}/${edited[kind.idKey]}`, { ...kind.key("5"), cost: "2" });
        const ids = async (query: Record<string, string>) =>
          (await api.get(path, { query: { field_id: parents.fieldId, ...query } })).body[
            collection
          ].map((rule: any) => rule[kind.idKey]);
        const id = (rule: any) => rule[kind.idKey] as string;

        expect(await ids({})).toEqual([id(running), id(scheduled), id(ended), id(edited)]);
        expect(await ids({ deleted: "true" })).toEqual(
          [running, scheduled, ended, deleted, edited].map(id),
        );
        expect(await ids({ is_active: "true" })).toEqual([id(running), id(edited)]);
        expect(await ids({ is_active: "false" })).toEqual(await ids({}));
        expect(await ids({ start: day(2 * DAY) })).toEqual([id(scheduled)]);
        expect(await ids({ end: day(0) })).toEqual([id(ended)]);
        expect(await ids({ description: "gold" })).toEqual([id(running)]);
        expect(await ids({ created_by: "noauth" })).toHaveLength(4);
        expect(await ids({ created_by: "someone-else" })).toEqual([]);
        expect(await ids({ updated_by: "noauth" })).toEqual([id(edited)]);
        expect(await ids({ deleted_by: "noauth", deleted: "true" })).toEqual([id(deleted)]);
        expect(await ids({ deleted_by: "noauth" })).toEqual([]);
        expectFault(await api.get(path, { query: { is_active: "maybe" } }), 400, /is_active/);
        expectFault(await api.get(path, { query: { start: "soon" } }), 400, /start/);
        expectFault(
          await api.get(path, { query: { all: "false" } }),
          400,
          "You must specify either service_uuid, field_uuid or group_uuid.",
        );
        expect((await api.get(path, { query: { all: "true" } })).status).toBe(200);
      });

      it("lists is_active as of the moment asked, not as of the last change", async () => {
        const parents = await seed.parents();
        const soon = expectCreated(
          await api.post(path, {
            ...kind.identity(parents, "field", "1"),
            cost: "1",
            start: fromNow(1_500),
          }),
        );
        const active = async () =>
          (await api.get(path, { query: { field_id: parents.fieldId, is_active: "true" } })).body[
            collection
          ].map((rule: any) => rule[kind.idKey]);
        expect(await active()).toEqual([]);
        await new Promise((resolve) => setTimeout(resolve, 2_000));
        expect(await active()).toEqual([soon[kind.idKey]]);
      });
    },
  );

  describe("scripts", () => {
    it("carry the lifecycle, soft-delete (GET then 404, as CloudKitty master), and free their name", async () => {
      const name = uniqueName("lifecycle");
      const script = expectCreated(
        await api.post(SCRIPTS, { name, data: "a = 1", description: "Nightly", end: day(DAY) }),
      );
      expect(script).toMatchObject({
        name,
        description: "Nightly",
        end: `${day(DAY)}T23:59:59`,
        created_by: "noauth",
        deleted: null,
      });
      expect(script.start).toBe(script.created_at);
      expect(script).not.toHaveProperty("name", null);
      expectFault(await api.post(SCRIPTS, { name, data: "b = 1" }), 409, /already exists/);
      expect((await api.delete(`${SCRIPTS}/${script.script_id}`)).status).toBe(204);
      expectFault(await api.get(`${SCRIPTS}/${script.script_id}`), 404, /^No such script/);
      const again = expectCreated(await api.post(SCRIPTS, { name, data: "b = 1" }));
      const listed = (await api.get(SCRIPTS, { query: { deleted: "true", no_data: "true" } })).body
        .scripts;
      const mine = listed.filter((entry: any) => entry.name === name);
      expect(mine.map((entry: any) => [entry.script_id, entry.deleted !== null])).toEqual([
        [script.script_id, true],
        [again.script_id, false],
      ]);
      expect(mine[0]).not.toHaveProperty("data");
      const [deletion] = await eventsOf(api, script.script_id);
      expect(deletion).toMatchObject({
        operation: "update",
        after: { deleted: expect.any(String) },
      });
    });

    it("refuse a start in the past without force, and filter by description", async () => {
      expectFault(
        await api.post(SCRIPTS, {
          name: uniqueName("past"),
          data: "",
          start: `${day(-DAY)}T00:00:00`,
        }),
        400,
        /^Cannot create a rule with start in the past\./,
      );
      expectCreated(
        await api.post(
          SCRIPTS,
          {
            name: uniqueName("past"),
            data: "",
            start: `${day(-DAY)}T00:00:00`,
            description: "Backfilled",
          },
          { query: { force: "true" } },
        ),
      );
      const found = (await api.get(SCRIPTS, { query: { description: "BACKFILL" } })).body.scripts;
      expect(found.map((entry: any) => entry.description)).toEqual(["Backfilled"]);
    });
  });

  describe("parents", () => {
    it("a service's deletion removes its rules, soft-deleted ones too: no orphans", async () => {
      const { serviceId, fieldId } = await seed.parents();
      const mapping = await seed.mapping({ field_id: fieldId, value: "x" });
      const threshold = await seed.threshold({ service_id: serviceId, level: "1" });
      await api.delete(`${HASHMAP}/mappings/${mapping.mapping_id}`);
      await api.delete(`${HASHMAP}/thresholds/${threshold.threshold_id}`);
      expect((await api.delete(`${HASHMAP}/services/${serviceId}`)).status).toBe(204);
      expect((await api.get(`${HASHMAP}/mappings/${mapping.mapping_id}`)).status).toBe(404);
      expect((await api.get(`${HASHMAP}/thresholds/${threshold.threshold_id}`)).status).toBe(404);
      const all = async (collection: string) =>
        (await api.get(`${HASHMAP}/${collection}`, { query: { deleted: "true" } })).body[
          collection
        ];
      expect((await all("mappings")).map((rule: any) => rule.mapping_id)).not.toContain(
        mapping.mapping_id,
      );
      expect((await all("thresholds")).map((rule: any) => rule.threshold_id)).not.toContain(
        threshold.threshold_id,
      );
    });

    it("a group's recursive deletion removes its rules, soft-deleted ones too", async () => {
      const { fieldId } = await seed.parents();
      const group = await seed.group();
      const mapping = await seed.mapping({
        field_id: fieldId,
        value: "y",
        group_id: group.group_id,
      });
      await api.delete(`${HASHMAP}/mappings/${mapping.mapping_id}`);
      await api.delete(`${HASHMAP}/groups/${group.group_id}`, { query: { recursive: "true" } });
      expect((await api.get(`${HASHMAP}/mappings/${mapping.mapping_id}`)).status).toBe(404);
    });
  });

  it("leaves deleted rules out of the rule-set export", async () => {
    const { fieldId } = await seed.parents();
    const kept = await seed.mapping({ field_id: fieldId, value: "kept" });
    const gone = await seed.mapping({ field_id: fieldId, value: "gone" });
    await api.delete(`${HASHMAP}/mappings/${gone.mapping_id}`);
    const text = (await api.get("/v1/ratecard/ruleset")).text;
    expect(text).toContain(kept.mapping_id);
    expect(text).not.toContain(gone.mapping_id);
  });
});

describe("strict mode (RULE_UPDATE_MODE=strict, CloudKitty master's)", () => {
  let server: TestServer;
  let api: Client;
  let seed: Seeder;
  beforeAll(async () => {
    server = await startServer({ env: { RULE_UPDATE_MODE: "strict" } });
    api = createClient(server.baseUrl);
    seed = seeder(api);
  });
  afterAll(async () => {
    await server.stop();
  });

  describe.each([MAPPINGS, THRESHOLDS].map((kind) => [kind.collection, kind] as const))(
    "%s",
    (collection, kind: RuleKind) => {
      const path = `${HASHMAP}/${collection}`;

      it("a rule in force takes only a new end, in the future, once", async () => {
        const parents = await seed.parents();
        const rule = expectCreated(
          await api.post(path, { ...kind.identity(parents, "field", "1"), cost: "1" }),
        );
        const url = `${path}/${rule[kind.idKey]}`;
        const refusal = await api.put(url, { ...kind.key("1"), cost: "2" });
        expectFault(refusal, 400, RUNNING);
        expect(refusal.body.faultstring).toContain(`[${pythonDate(rule.start)}]`);
        expectFault(
          await api.put(url, { ...kind.key("1"), cost: "1", tenant_id: "other" }),
          400,
          RUNNING,
        );
        expectFault(
          await api.put(url, { ...kind.key("1"), cost: "1", description: "new" }),
          400,
          RUNNING,
        );
        expectFault(
          await api.put(url, { ...kind.key("1"), cost: "1", end: `${day(-DAY)}T00:00:00` }),
          400,
          /^End date must be in the future\. end=\[[-0-9 :]+\] current time=\[[-0-9 :.]+\]$/,
        );
        expect((await api.get(url)).body).toEqual(rule);
        // The rule sent back whole, as read, with a new end: only the end changes.
        const { body: current } = await api.get(url);
        const ended = await api.put(url, { ...current, end: day(DAY) });
        expect(ended.status, ended.text).toBe(200);
        expect(ended.body).toEqual({ ...rule, end: `${day(DAY)}T23:59:59`, updated_by: "noauth" });
        expectFault(
          await api.put(url, { ...kind.key("1"), cost: "1", end: day(2 * DAY) }),
          400,
          "Cannot update a rule that was already processed and has a defined end date.",
        );
        const [update] = await eventsOf(api, rule[kind.idKey]);
        expect(update).toMatchObject({
          operation: "update",
          before: { end: null },
          after: { end: `${day(DAY)}T23:59:59` },
        });
      });

      it("a rule not yet started may be edited, its start kept unless given", async () => {
        const parents = await seed.parents();
        const start = fromNow(DAY);
        const rule = expectCreated(
          await api.post(path, { ...kind.identity(parents, "field", "2"), cost: "1", start }),
        );
        const edited = await api.put(`${path}/${rule[kind.idKey]}`, {
          ...kind.key("2"),
          cost: "3",
          tenant_id: "acme",
          description: "scheduled",
        });
        expect(edited.status, edited.text).toBe(200);
        expect(edited.body).toMatchObject({
          cost: "3.0000000000000000000000000000",
          tenant_id: "acme",
          description: "scheduled",
          start: rule.start,
        });
        expectFault(
          await api.put(`${path}/${rule[kind.idKey]}`, {
            ...kind.key("2"),
            cost: "3",
            start: `${day(-DAY)}T00:00:00`,
          }),
          400,
          /^Cannot create a rule with start in the past\./,
        );
      });

      it("deletes a rule in force (soft), and an identical one can be made again", async () => {
        const parents = await seed.parents();
        const identity = { ...kind.identity(parents, "field", "3"), cost: "1" };
        const rule = expectCreated(await api.post(path, identity));
        expect((await api.delete(`${path}/${rule[kind.idKey]}`)).status).toBe(204);
        expectCreated(await api.post(path, identity));
      });
    },
  );

  it("a script in force takes only a new end", async () => {
    const script = expectCreated(
      await api.post(SCRIPTS, { name: uniqueName("strict"), data: "a = 1" }),
    );
    expectFault(await api.put(`${SCRIPTS}/${script.script_id}`, { data: "a = 2" }), 400, RUNNING);
    const ended = await api.put(`${SCRIPTS}/${script.script_id}`, { end: day(DAY) });
    expect(ended.status, ended.text).toBe(200);
    expect(ended.body).toEqual({ ...script, end: `${day(DAY)}T23:59:59`, updated_by: "noauth" });
  });

  it("the CloudKitty 17 CLI's kind of update (cost and type) is refused on a rule in force, 400 in the fault shape", async () => {
    const { serviceId } = await seed.parents();
    const mapping = await seed.mapping({ service_id: serviceId });
    const answer = await api.put(`${HASHMAP}/mappings/`, {
      mapping_id: mapping.mapping_id,
      cost: "5",
      type: "rate",
    });
    expectFault(answer, 400, RUNNING);
  });
});

describe("authors, from the request's identity (AUTH_STRATEGY=local)", () => {
  let server: TestServer;
  let api: Client;
  beforeAll(async () => {
    server = await startServer({
      env: { AUTH_STRATEGY: "local", RATECARD_ADMIN_PASSWORD: "lifecycle-admin-password-1" },
    });
  });
  afterAll(async () => {
    await server.stop();
  });

  it("created_by, updated_by and deleted_by are the user id the audit trail records", async () => {
    const admin = await signIn(server.baseUrl, {
      username: "admin",
      password: "lifecycle-admin-password-1",
    });
    const plain = createClient(server.baseUrl);
    const as = { headers: { "X-Auth-Token": admin.token } };
    api = {
      ...plain,
      get: (path, options) => plain.get(path, { ...as, ...options }),
      post: (path, body, options) => plain.post(path, body, { ...as, ...options }),
      put: (path, body, options) => plain.put(path, body, { ...as, ...options }),
      delete: (path, options) => plain.delete(path, { ...as, ...options }),
    };
    const service = expectCreated(await api.post(`${HASHMAP}/services`, { name: "authored" }));
    const mapping = expectCreated(
      await api.post(`${HASHMAP}/mappings`, { service_id: service.service_id, cost: "1" }),
    );
    await api.put(`${HASHMAP}/mappings/${mapping.mapping_id}`, { cost: "2" });
    await api.delete(`${HASHMAP}/mappings/${mapping.mapping_id}`);
    const events = await eventsOf(api, mapping.mapping_id);
    const userId = events[0].user_id as string;
    expect(userId).not.toBe("noauth");
    expect(events.map((event) => event.user_id)).toEqual([userId, userId, userId]);
    expect((await api.get(`${HASHMAP}/mappings/${mapping.mapping_id}`)).body).toMatchObject({
      created_by: userId,
      updated_by: userId,
      deleted_by: userId,
    });
  });
});
