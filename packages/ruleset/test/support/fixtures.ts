import { uniformInt } from "pure-rand/distribution/uniformInt";
import { xoroshiro128plus } from "pure-rand/generator/xoroshiro128plus";
import type { RuleSetDocument } from "../../src/index.js";

/** A readable, fixed UUID: uuid(10) = 00000000-0000-4000-8000-00000000000a. */
export function uuid(n: number): string {
  return `00000000-0000-4000-8000-${n.toString(16).padStart(12, "0")}`;
}

export const ids = {
  gold: uuid(1),
  silver: uuid(2),
  compute: uuid(10),
  volume: uuid(11),
  flavor: uuid(20),
  image: uuid(21),
  volumeType: uuid(22),
  script: uuid(30),
};

/**
 * A rule set with every kind of object: groups, services with service mappings and thresholds,
 * fields with mappings (per tenant, per group) and thresholds, scripts, modules; exact decimals.
 */
export function sampleRuleSet(): RuleSetDocument {
  return {
    format: "ratecard.ruleset",
    version: 1,
    revision: "42",
    modules: [
      { id: "hashmap", enabled: true, priority: 1 },
      { id: "noop", enabled: false, priority: 1 },
      { id: "pyscripts", enabled: true, priority: 2 },
    ],
    groups: [
      { id: ids.gold, name: "gold" },
      { id: ids.silver, name: "silver" },
    ],
    services: [
      {
        id: ids.compute,
        name: "compute",
        mappings: [
          {
            id: uuid(100),
            value: null,
            type: "flat",
            cost: "0.01",
            tenant_id: null,
            group_id: null,
          },
          {
            id: uuid(101),
            value: null,
            type: "flat",
            cost: "0.00000001",
            tenant_id: "project-a",
            group_id: null,
          },
        ],
        thresholds: [
          {
            id: uuid(110),
            level: "10",
            type: "rate",
            cost: "0.9",
            tenant_id: null,
            group_id: null,
          },
          {
            id: uuid(111),
            level: "100.5",
            type: "rate",
            cost: "0.8",
            tenant_id: null,
            group_id: ids.gold,
          },
        ],
        fields: [
          {
            id: ids.flavor,
            name: "flavor",
            mappings: [
              {
                id: uuid(200),
                value: "m1.small",
                type: "flat",
                cost: "123456789.123456789",
                tenant_id: null,
                group_id: ids.silver,
              },
              {
                id: uuid(201),
                value: "m1.large",
                type: "flat",
                cost: "0.1234567890123456789012345678",
                tenant_id: null,
                group_id: null,
              },
              {
                id: uuid(202),
                value: "m1.small",
                type: "rate",
                cost: "2",
                tenant_id: "project-b",
                group_id: ids.silver,
              },
            ],
            thresholds: [],
          },
          {
            id: ids.image,
            name: "image_id",
            mappings: [
              {
                id: uuid(210),
                value: "a6b8…-ünïcode",
                type: "flat",
                cost: "-0.5",
                tenant_id: null,
                group_id: null,
              },
            ],
            thresholds: [
              {
                id: uuid(220),
                level: "0.00000001",
                type: "flat",
                cost: "3",
                tenant_id: "project-a",
                group_id: null,
              },
            ],
          },
        ],
      },
      {
        id: ids.volume,
        name: "volume.size",
        mappings: [],
        thresholds: [],
        fields: [{ id: ids.volumeType, name: "volume_type", mappings: [], thresholds: [] }],
      },
    ],
    scripts: [
      {
        id: ids.script,
        name: "discount",
        data: 'import decimal\n\n# trailing spaces   \nfor x in data:\n\tpass\n"yes": null\n',
      },
    ],
  };
}

/** A deterministic pseudo-random permutation (Fisher-Yates on pure-rand's xoroshiro128+). */
export function shuffled<T>(items: readonly T[], seed: number): T[] {
  const rng = xoroshiro128plus(seed);
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = uniformInt(rng, 0, i);
    [copy[i], copy[j]] = [copy[j]!, copy[i]!];
  }
  return copy;
}

/** Every list of the document shuffled, and every object's keys in reverse order. */
export function scrambled(document: RuleSetDocument, seed: number): RuleSetDocument {
  const reverseKeys = <T extends object>(value: T): T =>
    Object.fromEntries(Object.entries(value).reverse()) as T;
  const rules = <T extends object>(list: T[], offset: number) =>
    shuffled(list, seed + offset).map(reverseKeys);
  return reverseKeys({
    ...document,
    modules: rules(document.modules, 1),
    groups: rules(document.groups, 2),
    services: shuffled(document.services, seed + 3).map((service, i) =>
      reverseKeys({
        ...service,
        mappings: rules(service.mappings, 10 + i),
        thresholds: rules(service.thresholds, 20 + i),
        fields: shuffled(service.fields, seed + 30 + i).map((field, j) =>
          reverseKeys({
            ...field,
            mappings: rules(field.mappings, 40 + i * 10 + j),
            thresholds: rules(field.thresholds, 50 + i * 10 + j),
          }),
        ),
      }),
    ),
    scripts: rules(document.scripts, 4),
  });
}

/**
 * The sample as version 2: every rule and script with its lifecycle, as an export states it (a
 * rule in force, a scheduled one, an ended one, a description, a moment with microseconds).
 */
export function lifecycleRuleSet(): RuleSetDocument {
  const document = sampleRuleSet();
  document.version = 2;
  let n = 0;
  const stamp = <T extends { id: string }>(rule: T) => {
    n++;
    return {
      ...rule,
      start: n === 2 ? "2030-01-01T00:00:00" : "2026-01-01T00:00:00",
      end: n === 3 ? "2026-06-30T23:59:59" : null,
      name: `rule-${rule.id.slice(-3)}`,
      description: n === 4 ? "the per-tenant price, until the contract's end" : null,
    };
  };
  for (const service of document.services) {
    service.mappings = service.mappings.map(stamp);
    service.thresholds = service.thresholds.map(stamp);
    for (const field of service.fields) {
      field.mappings = field.mappings.map(stamp);
      field.thresholds = field.thresholds.map(stamp);
    }
  }
  document.scripts = document.scripts.map((script) => ({
    ...script,
    start: "2026-03-01T12:00:00.250000",
    end: null,
    description: "a discount for everyone",
  }));
  return document;
}
