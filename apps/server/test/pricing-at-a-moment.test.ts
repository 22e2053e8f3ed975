import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient, HASHMAP, type ApiResponse, type Client } from "./support/client.js";
import { expectFault, seeder, uniqueName } from "./support/hashmap.js";
import { startServer, type TestServer } from "./support/server.js";

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
afterAll(async () => {
  await server.stop();
});

/** mulberry32: small, fast and good enough to pick random writes reproducibly. */
function prng(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (n: number) => Math.floor(next() * n),
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!,
    chance: (p: number) => next() < p,
  };
}

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
    const random = prng(seed);
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
    const ruleExtras = () => {
      const extras: Record<string, unknown> = {
        type: random.pick(["flat", "rate"]),
        cost: random.pick(costs),
      };
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
        expect(answer.status, `${where(step)}: ${answer.text}`).toBe(204);
        known.groups.delete(id);
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
      recorded.push({ at, step, what, prices: await snapshot() });
      await after(at);
    }
    // Leave the module as other tests expect it.
    expect((await api.put(`${MODULES}/hashmap`, { enabled: true })).status).toBe(200);
    await after(Date.now());
    const distinct = new Set(recorded.map((entry) => JSON.stringify(entry.prices))).size;
    expect(distinct, where(-1)).toBeGreaterThan(3);
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
