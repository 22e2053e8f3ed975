import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createClient, HASHMAP, type ApiResponse, type Client } from "./support/client.js";
import { expectFault, seeder, uniqueName } from "./support/hashmap.js";
import { rpc } from "./support/auth.js";
import { startServer, type TestServer } from "./support/server.js";
import { seededRandom } from "./support/random.js";

// Pricing at a moment (issue 10, point 3; docs/pricing-at-a-moment.md) over real HTTP: the quote
// and the preview take `at`; a past moment is priced with the rules rebuilt from the audit trail.
// The randomized test records prices after every write of a random history, then asks for each
// recorded moment again: the reconstruction must give exactly what was answered then.

const QUOTE = "/v1/rating/quote";
const PREVIEW = `${HASHMAP}/preview`;
const MODULES = "/v1/rating/modules";

let server: TestServer;
let api: Client;

beforeAll(async () => {
  server = await startServer();
  api = createClient(server.baseUrl);
});
// The random history switches hashmap on and off; every other test prices with it on.
afterEach(async () => {
  expect((await api.put(`${MODULES}/hashmap`, { enabled: true })).status).toBe(200);
});
afterAll(async () => {
  await server.stop();
});

/** Waits until the clock has moved past `moment`, so that the next write is strictly later. */
async function after(moment: number): Promise<void> {
  while (Date.now() <= moment + 1) await new Promise((resolve) => setTimeout(resolve, 2));
}

const iso = (ms: number) => new Date(ms).toISOString();

/** The preview's breakdown without what depends on how it was asked (moment, provenance). */
function breakdownOf(answer: ApiResponse<Record<string, unknown>>): unknown {
  expect(answer.status, answer.text).toBe(200);
  const { at: _at, reconstructed: _r, event_id: _e, ...rest } = answer.body;
  return rest;
}

describe("pricing at a past moment, rebuilt from the audit trail", () => {
  it("gives for every moment of a random history exactly the prices answered then", async () => {
    const seed = Number(process.env.RATECARD_TEST_SEED ?? Math.floor(Math.random() * 2 ** 31));
    const steps = Number(process.env.RATECARD_TEST_STEPS ?? 70);
    const random = seededRandom(seed);
    const where = (step: number) => `seed ${seed} (RATECARD_TEST_SEED=${seed}), step ${step}`;

    // Names from small pools, so that writes meet each other: the same services are deleted and
    // created again, rules collide in their slots, a group named _DEFAULT_ shares the default one.
    const prefix = uniqueName("moment");
    const serviceNames = ["s0", "s1", "s2"].map((name) => `${prefix}-${name}`);
    const fieldNames = ["flavor", "size"];
    const groupNames = [`${prefix}-g0`, `${prefix}-g1`, "_DEFAULT_"];
    const values = ["a", "b", "7"];
    const levels = ["0", "5", "10"];
    const costs = ["0.5", "1", "2.25", "0.001", "3", "0.98", "1.5"];
    const tenants = [null, "t1"];

    interface Known {
      services: Map<string, string>; // id -> name
      fields: Map<string, { serviceId: string; name: string }>;
      groups: Map<string, string>;
      mappings: Set<string>;
      thresholds: Set<string>;
    }
    const known: Known = {
      services: new Map(),
      fields: new Map(),
      groups: new Map(),
      mappings: new Set(),
      thresholds: new Set(),
    };

    const points = serviceNames.flatMap((service) => [
      { service, desc: { metadata: { flavor: "a", size: "7" } }, volume: "3" },
      { service, desc: { metadata: { flavor: "b", size: "12" } }, volume: "1.5" },
    ]);
    const previews = serviceNames.map((service) => ({
      service,
      volume: "2",
      metadata: { flavor: "7", size: "5" },
      tenant_id: "t1",
    }));

    const ok = (answer: ApiResponse, step: number) =>
      expect([200, 201, 204, 409], `${where(step)}: ${answer.text}`).toContain(answer.status);

    const parentOf = (): Record<string, string> | null => {
      const fields = [...known.fields.keys()];
      const services = [...known.services.keys()];
      if (fields.length && random.chance(0.6)) return { field_id: random.pick(fields) };
      if (services.length) return { service_id: random.pick(services) };
      return null;
    };
    // Validity periods starting or ending during the run: the rules in force change between
    // writes, and a recording is kept only when no such moment falls while it is being taken.
    const boundaries: number[] = [];
    const ruleExtras = () => {
      const extras: Record<string, unknown> = {
        type: random.pick(["flat", "rate"]),
        cost: random.pick(costs),
      };
      let start = Date.now();
      if (random.chance(0.2)) {
        start += 600 + random.int(2000);
        extras.start = iso(start);
        boundaries.push(start);
      }
      if (random.chance(0.2)) {
        const end = start + 600 + random.int(3000);
        extras.end = iso(end);
        boundaries.push(end);
      }
      if (known.groups.size && random.chance(0.5))
        extras.group_id = random.pick([...known.groups.keys()]);
      const tenant = random.pick(tenants);
      if (tenant) extras.tenant_id = tenant;
      return extras;
    };

    async function randomWrite(step: number): Promise<string> {
      const roll = random.next();
      if (roll < 0.1 || known.services.size === 0) {
        const free = serviceNames.filter((name) => ![...known.services.values()].includes(name));
        if (!free.length) return "nothing";
        const answer = await api.post(`${HASHMAP}/services`, { name: random.pick(free) });
        ok(answer, step);
        if (answer.status === 201) known.services.set(answer.body.service_id, answer.body.name);
        return "create service";
      }
      if (roll < 0.18) {
        const serviceId = random.pick([...known.services.keys()]);
        const answer = await api.post(`${HASHMAP}/fields`, {
          name: random.pick(fieldNames),
          service_id: serviceId,
        });
        ok(answer, step);
        if (answer.status === 201)
          known.fields.set(answer.body.field_id, { serviceId, name: answer.body.name });
        return "create field";
      }
      if (roll < 0.24) {
        const answer = await api.post(`${HASHMAP}/groups`, { name: random.pick(groupNames) });
        ok(answer, step);
        if (answer.status === 201) known.groups.set(answer.body.group_id, answer.body.name);
        return "create group";
      }
      if (roll < 0.44) {
        const parent = parentOf();
        if (!parent) return "nothing";
        const body = {
          ...parent,
          ...ruleExtras(),
          ...(parent.field_id && { value: random.pick(values) }),
        };
        const answer = await api.post(`${HASHMAP}/mappings`, body);
        ok(answer, step);
        if (answer.status === 201) known.mappings.add(answer.body.mapping_id);
        return "create mapping";
      }
      if (roll < 0.56) {
        const parent = parentOf();
        if (!parent) return "nothing";
        const answer = await api.post(`${HASHMAP}/thresholds`, {
          ...parent,
          ...ruleExtras(),
          level: random.pick(levels),
        });
        ok(answer, step);
        if (answer.status === 201) known.thresholds.add(answer.body.threshold_id);
        return "create threshold";
      }
      if (roll < 0.78) {
        const kind = random.chance(0.6) ? "mappings" : "thresholds";
        const ids = [...known[kind]];
        if (!ids.length) return "nothing";
        const id = random.pick(ids);
        const change: Record<string, unknown> = {};
        if (random.chance(0.6)) change.cost = random.pick(costs);
        if (random.chance(0.3)) change.type = random.pick(["flat", "rate"]);
        if (random.chance(0.3) && known.groups.size)
          change.group_id = random.pick([...known.groups.keys()]);
        if (random.chance(0.3)) change.tenant_id = random.pick(tenants);
        if (kind === "thresholds" && random.chance(0.3)) change.level = random.pick(levels);
        if (kind === "mappings" && random.chance(0.2)) change.value = random.pick(values);
        const answer = await api.put(`${HASHMAP}/${kind}/${id}`, change);
        // A value on a service mapping is refused (400), like some identity collisions (409); a
        // rule its parent's deletion took with it is gone (404).
        expect([200, 400, 404, 409], `${where(step)}: ${answer.text}`).toContain(answer.status);
        if (answer.status === 404) known[kind].delete(id);
        return `update ${kind}`;
      }
      if (roll < 0.88) {
        const kind = random.chance(0.6) ? "mappings" : "thresholds";
        const ids = [...known[kind]];
        if (!ids.length) return "nothing";
        const id = random.pick(ids);
        const answer = await api.delete(`${HASHMAP}/${kind}/${id}`);
        expect([204, 404], `${where(step)}: ${answer.text}`).toContain(answer.status);
        known[kind].delete(id);
        return `delete ${kind}`;
      }
      if (roll < 0.92 && known.groups.size) {
        const id = random.pick([...known.groups.keys()]);
        const answer = await api.delete(`${HASHMAP}/groups/`, {
          body: { group_id: id, recursive: random.chance(0.5) },
        });
        // Refused (409) when moving its rules to no group would duplicate rules already there.
        expect([204, 409], `${where(step)}: ${answer.text}`).toContain(answer.status);
        if (answer.status === 204) known.groups.delete(id);
        return "delete group";
      }
      if (roll < 0.95 && known.fields.size) {
        const id = random.pick([...known.fields.keys()]);
        const answer = await api.delete(`${HASHMAP}/fields/`, { query: { field_id: id } });
        expect(answer.status, `${where(step)}: ${answer.text}`).toBe(204);
        known.fields.delete(id);
        return "delete field";
      }
      if (roll < 0.97 && known.services.size) {
        const id = random.pick([...known.services.keys()]);
        const answer = await api.delete(`${HASHMAP}/services/`, { query: { service_id: id } });
        expect(answer.status, `${where(step)}: ${answer.text}`).toBe(204);
        known.services.delete(id);
        for (const [fieldId, field] of known.fields)
          if (field.serviceId === id) known.fields.delete(fieldId);
        return "delete service";
      }
      const answer = await api.put(`${MODULES}/hashmap`, { enabled: random.chance(0.6) });
      expect(answer.status, `${where(step)}: ${answer.text}`).toBe(200);
      return "switch hashmap";
    }

    const snapshot = async (at?: number) => {
      const moment = at === undefined ? {} : { at: iso(at) };
      const quote = await api.post(QUOTE, { resources: points, ...moment });
      expect(quote.status, quote.text).toBe(200);
      const breakdowns = [];
      for (const preview of previews)
        breakdowns.push(breakdownOf(await api.post(PREVIEW, { ...preview, ...moment })));
      return { quote: quote.text, breakdowns };
    };

    const recorded: { at: number; step: number; what: string; prices: unknown }[] = [];
    for (let step = 0; step < steps; step++) {
      const what = await randomWrite(step);
      const at = Date.now();
      const prices = await snapshot();
      const done = Date.now();
      // Each request priced at its own "now": all of them priced at `at` only if no rule started
      // or ended meanwhile (deletions are writes, and no write happens while recording).
      if (!boundaries.some((moment) => moment >= at - 2 && moment <= done + 2))
        recorded.push({ at, step, what, prices });
      await after(done);
    }
    await after(Date.now());
    const distinct = new Set(recorded.map((entry) => JSON.stringify(entry.prices))).size;
    expect(distinct, where(-1)).toBeGreaterThan(3);
    expect(recorded.length, where(-1)).toBeGreaterThan(steps / 2);
    for (const entry of recorded) {
      expect(
        await snapshot(entry.at),
        `${where(entry.step)} (${entry.what}) at ${iso(entry.at)}`,
      ).toEqual(entry.prices);
    }
  }, 180_000);

  it("says a past moment's rules were rebuilt, and from which change", async () => {
    const service = uniqueName("rebuilt");
    const seed = seeder(api);
    const created = await seed.service(service);
    await seed.mapping({ service_id: created.service_id, cost: "2" });
    const before = Date.now();
    await after(before);
    const mapping = await seed.mapping({
      service_id: created.service_id,
      cost: "3",
      tenant_id: "x",
    });
    expect(mapping.mapping_id).toBeTruthy();
    const then = await api.post(PREVIEW, { service, volume: "1", at: iso(before) });
    expect(then.status, then.text).toBe(200);
    expect(then.body).toMatchObject({
      at: iso(before),
      reconstructed: true,
      hashmap_enabled: expect.any(Boolean),
      excluded: [],
      total: "2",
    });
    expect(then.body.event_id).toEqual(expect.any(Number));
    const now = await api.post(PREVIEW, { service, volume: "1" });
    expect(now.body).toMatchObject({ reconstructed: false, event_id: null, total: "2" });
  });
});

describe("the moment parameter", () => {
  it.each([
    ["not a date", "yesterday"],
    ["a time without its offset", "2026-11-25T10:00:00"],
    ["an impossible date", "2026-02-31T10:00:00Z"],
    ["a number", 1764064800000],
  ])("answers %s with a 400 fault (quote and preview)", async (_case, at) => {
    expectFault(
      await api.post(QUOTE, { resources: [], at }),
      400,
      /^Invalid input for field\/attribute|Expected an ISO 8601|Wrong type/,
    );
    expectFault(
      await api.post(PREVIEW, { service: "x", volume: "1", at }),
      400,
      /^Invalid input for field\/attribute|Expected an ISO 8601|Wrong type/,
    );
  });

  it("refuses a moment before the audit trail's first change with a 400 fault that says so", async () => {
    const seed = seeder(api);
    await seed.service(uniqueName("trail"));
    expectFault(
      await api.post(QUOTE, { resources: [], at: "2001-01-01T00:00:00Z" }),
      400,
      /^Cannot price at 2001-01-01T00:00:00\.000Z: the audit trail begins at \S+, and the rules before its first change cannot be rebuilt\.$/,
    );
    expectFault(
      await api.post(PREVIEW, { service: "x", volume: "1", at: "2001-01-01" }),
      400,
      /the audit trail begins at/,
    );
  });

  it("prices a future moment with the present rules when none has dates", async () => {
    const seed = seeder(api);
    const service = uniqueName("future");
    const created = await seed.service(service);
    await seed.mapping({ service_id: created.service_id, cost: "4" });
    const future = iso(Date.now() + 3_600_000);
    const quote = await api.post(QUOTE, {
      resources: [{ service, desc: {}, volume: "2" }],
      at: future,
    });
    expect(quote.text).toBe("8");
    const preview = await api.post(PREVIEW, { service, volume: "2", at: future });
    expect(preview.body).toMatchObject({
      at: future,
      reconstructed: false,
      total: "8",
      excluded: [],
    });
  });
});

describe("validity periods at a moment", () => {
  const quoteAt = async (service: string, at?: number) => {
    const answer = await api.post(QUOTE, {
      resources: [{ service, desc: {}, volume: "2" }],
      ...(at !== undefined && { at: iso(at) }),
    });
    expect(answer.status, answer.text).toBe(200);
    return answer.text;
  };

  it("prices a future moment with the rules scheduled for it, and lists those left out", async () => {
    const seed = seeder(api);
    const service = uniqueName("scheduled");
    const created = await seed.service(service);
    const hour = 3_600_000;
    const now = Date.now();
    const later = await seed.group();
    const ending = await seed.mapping({
      service_id: created.service_id,
      cost: "1",
      end: iso(now + 2 * hour),
    });
    const starting = await seed.mapping({
      service_id: created.service_id,
      group_id: later.group_id,
      cost: "4",
      start: iso(now + hour),
    });
    expect(await quoteAt(service)).toBe("2");
    expect(await quoteAt(service, now + 1.5 * hour)).toBe("10");
    expect(await quoteAt(service, now + 3 * hour)).toBe("8");
    // The end itself is no longer in force; the start itself is.
    expect(await quoteAt(service, now + hour)).toBe("10");
    expect(await quoteAt(service, now + 2 * hour)).toBe("8");

    const preview = async (at?: number) =>
      (
        await api.post(PREVIEW, {
          service,
          volume: "2",
          ...(at !== undefined && { at: iso(at) }),
        })
      ).body;
    expect(await preview()).toMatchObject({
      total: "2",
      excluded: [
        {
          kind: "mapping",
          rule_id: starting.mapping_id,
          reason: "not_started",
          start: starting.start,
          end: null,
        },
      ],
    });
    expect(await preview(now + 3 * hour)).toMatchObject({
      total: "8",
      reconstructed: false,
      event_id: null,
      excluded: [{ rule_id: ending.mapping_id, reason: "ended", end: ending.end }],
    });
  });

  it("uses a rule whose start passes between two quotes, without any write", async () => {
    const seed = seeder(api);
    const service = uniqueName("boundary");
    const created = await seed.service(service);
    await seed.mapping({ service_id: created.service_id, cost: "1" });
    const start = Date.now() + 1500;
    const group = await seed.group();
    await seed.mapping({
      service_id: created.service_id,
      group_id: group.group_id,
      cost: "3",
      start: iso(start),
    });
    expect(await quoteAt(service)).toBe("2");
    const trail = await api.get("/v1/ratecard/audit", { query: { limit: "1" } });
    await after(start + 10);
    expect(await quoteAt(service)).toBe("8");
    // Nothing was written in between: the quote saw the start pass by itself.
    const trailAfter = await api.get("/v1/ratecard/audit", { query: { limit: "1" } });
    expect(trailAfter.body.events[0].event_id).toBe(trail.body.events[0].event_id);
  });

  it("shows the console's kept preview the rule whose start passed, without any write", async () => {
    const seed = seeder(api);
    const service = uniqueName("kept-preview");
    const created = await seed.service(service);
    await seed.mapping({ service_id: created.service_id, cost: "1" });
    const start = Date.now() + 1500;
    const group = await seed.group();
    await seed.mapping({
      service_id: created.service_id,
      group_id: group.group_id,
      cost: "3",
      start: iso(start),
    });
    // The console asks over RPC with GET, and the read snapshot keeps such answers.
    const preview = async () => {
      const answer = await rpc(server.baseUrl, "hashmap.preview", { service, volume: "2" });
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      return (answer.data as { total: string }).total;
    };
    expect(await preview()).toBe("2");
    expect(await preview()).toBe("2");
    await after(start + 10);
    expect(await preview()).toBe("8");
  });

  it("prices a moment before a rule's deletion with it, and after without it", async () => {
    const seed = seeder(api);
    const service = uniqueName("soft-deleted");
    const created = await seed.service(service);
    await seed.mapping({ service_id: created.service_id, cost: "1" });
    const group = await seed.group();
    const doomed = await seed.mapping({
      service_id: created.service_id,
      group_id: group.group_id,
      cost: "5",
    });
    const before = Date.now();
    await after(before);
    expect((await api.delete(`${HASHMAP}/mappings/${doomed.mapping_id}`)).status).toBe(204);
    expect(await quoteAt(service)).toBe("2");
    expect(await quoteAt(service, before)).toBe("12");
    const previewed = await api.post(PREVIEW, { service, volume: "2", at: iso(before) });
    expect(previewed.body).toMatchObject({ total: "12", reconstructed: true, excluded: [] });
  });
});
