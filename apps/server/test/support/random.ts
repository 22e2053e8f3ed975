import { uniformFloat64 } from "pure-rand/distribution/uniformFloat64";
import { uniformInt } from "pure-rand/distribution/uniformInt";
import { xoroshiro128plus } from "pure-rand/generator/xoroshiro128plus";

// A seeded generator (pure-rand's xoroshiro128+), so that generated tests draw the same sequence
// on every machine and a failure can be replayed from its seed.

export function seededRandom(seed: number) {
  const rng = xoroshiro128plus(seed);
  /** In [0, 1). */
  const next = () => uniformFloat64(rng);
  /** An integer in [0, below). */
  const int = (below: number) => uniformInt(rng, 0, below - 1);
  const pick = <T>(items: readonly T[]): T => items[int(items.length)]!;
  const chance = (p: number) => next() < p;
  const uuid = () =>
    "xxxxxxxx-xxxx-4xxx-8xxx-xxxxxxxxxxxx".replace(/x/g, () => int(16).toString(16));
  return { next, int, pick, chance, uuid };
}

export type Random = ReturnType<typeof seededRandom>;
