import { uniformFloat64 } from "pure-rand/distribution/uniformFloat64";
import { uniformInt } from "pure-rand/distribution/uniformInt";
import { xoroshiro128plus } from "pure-rand/generator/xoroshiro128plus";
import { describe, expect, it } from "vitest";
import { readPlainQuoteRequest, ZQuoteProcedureInput, ZQuoteRequest } from "../src/rating.js";

// The quote's plain way (readPlainQuoteRequest, which ZQuoteProcedureInput.parseAsync tries first)
// against zod's own reading (safeParse), on generated requests, valid and not.

/** Seeded (pure-rand's xoroshiro128+): the same requests on every machine. */
function generator(seed: number) {
  const rng = xoroshiro128plus(seed);
  const int = (below: number) => uniformInt(rng, 0, below - 1);
  const pick = <T>(items: readonly T[]): T => items[int(items.length)]!;
  const chance = (p: number) => uniformFloat64(rng) < p;
  return { int, pick, chance };
}
type Random = ReturnType<typeof generator>;

const VOLUMES: unknown[] = [
  "1",
  "0.5",
  "-2",
  "1e3",
  " 4 ",
  "abc",
  "",
  "1.00000000000000000000000000001",
  "9999999999999999999999999999",
  "99999999999999999999999999999",
  1,
  0.1,
  -0,
  1e300,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  null,
  true,
  [],
  {},
];
const DESCS: unknown[] = [
  { flavor_id: "m1.small" },
  { metadata: { flavor_id: "m1.small" }, groupby: { project_id: "p" } },
  {},
  [],
  "desc",
  null,
  JSON.parse('{"__proto__": {"a": 1}, "b": 2}') as unknown,
  Object.create(null) as unknown,
];

function resource(random: Random): unknown {
  const value: Record<string, unknown> = {};
  if (!random.chance(0.05)) value.service = random.pick(["compute", "volume", "", 5, null]);
  if (random.chance(0.7)) value.desc = random.pick(DESCS);
  if (!random.chance(0.05)) value.volume = random.pick(VOLUMES);
  if (random.chance(0.03)) value.extra = 1;
  if (random.chance(0.5)) return value;
  // The same members in another order.
  return Object.fromEntries(Object.entries(value).reverse());
}

function request(random: Random): unknown {
  if (random.chance(0.02)) return random.pick([null, [], "quote", 1]);
  const value: Record<string, unknown> = {
    resources: random.chance(0.03)
      ? "none"
      : Array.from({ length: random.int(4) }, () => resource(random)),
  };
  if (random.chance(0.2))
    value.at = random.pick(["2026-11-25", "2026-11-25T18:00:00Z", "2026-02-31", 5]);
  if (random.chance(0.03)) value.tenant = "t";
  return value;
}

describe("the quote's plain way reads what zod reads", () => {
  it("on generated requests", async () => {
    const random = generator(20261126);
    let plain = 0;
    let refused = 0;
    for (let run = 0; run < 20_000; run++) {
      const input = request(random);
      const expected = ZQuoteRequest.safeParse(input);
      const fast = readPlainQuoteRequest(input);
      if (fast !== undefined) {
        plain++;
        expect(expected.success, JSON.stringify(input)).toBe(true);
        // Same values, members in the same order.
        expect(JSON.stringify(fast)).toBe(JSON.stringify(expected.data));
        expect(fast).toStrictEqual(expected.data);
      }
      if (!expected.success) {
        refused++;
        await expect(ZQuoteProcedureInput.parseAsync(input)).rejects.toMatchObject({
          issues: expected.error.issues,
        });
      } else {
        expect(await ZQuoteProcedureInput.parseAsync(input)).toStrictEqual(expected.data);
      }
    }
    expect(plain).toBeGreaterThan(3_000);
    expect(refused).toBeGreaterThan(3_000);
  });

  it("reads a thousand plain resources without zod, to zod's result", async () => {
    const resources = Array.from({ length: 1000 }, (_, i) => ({
      service: "compute",
      desc: { flavor_id: `flavor-${i}` },
      volume: i % 2 === 0 ? "1" : 2,
    }));
    const fast = readPlainQuoteRequest({ resources });
    expect(fast).toBeDefined();
    expect(fast).toStrictEqual(ZQuoteRequest.safeParse({ resources }).data);
    expect(await ZQuoteProcedureInput.parseAsync({ resources })).toStrictEqual(fast);
  });
});
