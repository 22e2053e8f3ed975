import type { RuleSetDocument, RuleSetObjectKind } from "@ratecard/ruleset";
import type { DuplicateRule } from "./convert.js";
import { planTarget, type PlanGeneration, type TargetOperation } from "./target-plan.js";

/*
 * Drift: how a CloudKitty target differs from what it should hold. Read only, framework-free. The
 * target's (converted) rule set is compared with the document last applied to it and with
 * Ratecard's rule set now, each through planTarget (one comparison, the plan's matching by id and
 * natural key), and then checked on its own: rules CloudKitty holds twice, a rating module
 * disabled while it has rules, services no collected metric feeds and fields no metric carries.
 */

export const DRIFT_KINDS = [
  "missing",
  "extra",
  "changed",
  "duplicate",
  "module_disabled",
  "unknown_metric",
  "unknown_metadata",
] as const;
export type DriftKind = (typeof DRIFT_KINDS)[number];

/**
 * What a difference was found against: the document last applied, or Ratecard's rule set now.
 * Findings about the target alone (duplicate, module_disabled, unknown_metric, unknown_metadata)
 * are reported once, against "ratecard".
 */
export type DriftAgainst = "last_apply" | "ratecard";

type Value = string | number | boolean | null;

export interface DriftDifference {
  kind: DriftKind;
  object_kind: RuleSetObjectKind;
  /** Readable place by names, as in a plan: "compute/flavor_name/mappings/m1.small". */
  path: string;
  /** Ratecard's id of the object (null when it exists only in CloudKitty). */
  ratecard_id: string | null;
  /** CloudKitty's id (null when it is missing there). */
  target_id: string | null;
  /** changed: the attribute that differs. */
  field?: string;
  /** What the target should hold (changed: the attribute's value; missing: the object, briefly). */
  expected?: Value;
  /** What the target holds (changed: the attribute's value; extra: the object, briefly). */
  actual?: Value;
  against: DriftAgainst;
  /** Why, when the kind alone does not say (duplicates, metrics). */
  note?: string;
}

/** A metric the target collects (`GET /v1/info/metrics`) and the metadata it keeps of it. */
export interface TargetMetric {
  metric_id: string;
  metadata: readonly string[];
}

export interface DriftInput {
  /** The target's rule set now, converted (CloudKitty's ids). */
  target: RuleSetDocument;
  /** Ratecard's rule set now. */
  ratecard: RuleSetDocument;
  /** The document the last apply sent, or null when nothing was ever applied. */
  lastApplied: RuleSetDocument | null;
  /** The conversion report's duplicates. */
  duplicates?: readonly DuplicateRule[];
  /** Compare costs and levels as doubles (a CloudKitty on SQLite). */
  doublePrecision?: boolean;
  /** The target's metrics; null or absent when they could not be read (no metric checks then). */
  metrics?: readonly TargetMetric[] | null;
  /** Whether scripts are compared (the target has them pushed); else they are left out. */
  scripts?: boolean;
  /** Whether module states are compared (the target has them pushed). */
  modules?: boolean;
  /**
   * Ratecard's ids to CloudKitty's, keyed "kind:ratecard_id" (the target's id map): objects are
   * then paired by the id CloudKitty gave them, so an out-of-band edit of a rule's value shows as
   * a change of that rule rather than one missing and one extra.
   */
  idMap?: ReadonlyMap<string, string>;
  /**
   * "23+": both sides carry validity dates (mappings and scripts), compared as a 23+ plan does;
   * CloudKitty's ended rules are its history. Default "pre-23".
   */
  generation?: PlanGeneration;
  /** The moment compared at (23+); default now. */
  now?: Date;
}

export interface TargetDrift {
  differences: DriftDifference[];
  counts: Record<DriftKind, number>;
  doublePrecision: boolean;
}

type Attributes = Record<string, Value>;

/** "flat 0.5", "rate 2 (tenant t, group g)", a name: an object in a few words. */
function brief(kind: RuleSetObjectKind, attributes: Attributes | null): Value {
  if (!attributes) return null;
  if (kind === "mapping" || kind === "threshold") {
    const extra = [
      attributes.tenant_id ? `tenant ${String(attributes.tenant_id)}` : null,
      attributes.group ? `group ${String(attributes.group)}` : null,
    ].filter(Boolean);
    const level = kind === "threshold" ? ` from ${String(attributes.level)}` : "";
    return (
      `${String(attributes.type)} ${String(attributes.cost)}${level}` +
      (extra.length ? ` (${extra.join(", ")})` : "")
    );
  }
  if (kind === "script") return String(attributes.name);
  if (kind === "field") return `${String(attributes.service)}/${String(attributes.name)}`;
  if (kind === "module") return JSON.stringify(attributes);
  return String(attributes.name);
}

/** planTarget's operations as drift differences. */
function fromPlan(
  operations: readonly TargetOperation[],
  against: DriftAgainst,
): DriftDifference[] {
  const differences: DriftDifference[] = [];
  for (const o of operations) {
    const base = { object_kind: o.kind, path: o.path, target_id: o.target_id, against };
    switch (o.op) {
      case "create":
        differences.push({
          kind: "missing",
          ...base,
          ratecard_id: o.ratecard_id,
          expected: brief(o.kind, o.after),
        });
        break;
      case "update":
      case "replace":
      case "module":
      case "supersede":
      case "frozen":
        for (const field of o.changes ?? []) {
          differences.push({
            kind: "changed",
            ...base,
            ratecard_id: o.ratecard_id,
            field,
            expected: o.after?.[field] ?? null,
            actual: o.before?.[field] ?? null,
          });
        }
        break;
      case "delete":
      case "unmanaged":
        differences.push({
          kind: "extra",
          ...base,
          ratecard_id: null,
          actual: brief(o.kind, o.before),
        });
        break;
      case "duplicate":
        // Reported once from the conversion's duplicates, not per comparison.
        break;
    }
  }
  return differences;
}

export function driftTarget(input: DriftInput): TargetDrift {
  const doublePrecision = input.doublePrecision ?? false;
  const idMap = input.idMap ?? new Map<string, string>();
  const differences: DriftDifference[] = [];
  const compare = (expected: RuleSetDocument, against: DriftAgainst) => {
    // What is not pushed is not compared: scripts (code CloudKitty runs) and module states are
    // opt-ins of the target; objects only in CloudKitty are listed as if pruning (then "extra").
    const plan = planTarget(expected, input.target, {
      prune: true,
      doublePrecision,
      idMap,
      scripts: input.scripts ?? false,
      modules: input.modules ?? false,
      ...(input.generation ? { generation: input.generation } : {}),
      ...(input.now ? { now: input.now } : {}),
    });
    differences.push(...fromPlan(plan.operations, against));
  };
  if (input.lastApplied) compare(input.lastApplied, "last_apply");
  compare(input.ratecard, "ratecard");

  // Findings about the target alone.
  const reverse = new Map<string, string>();
  for (const [key, cloudKittyId] of idMap) {
    const [kind, ratecardId] = [key.slice(0, key.indexOf(":")), key.slice(key.indexOf(":") + 1)];
    reverse.set(`${kind}:${cloudKittyId}`, ratecardId);
  }
  // Ids Ratecard holds as CloudKitty's own (after an import) need no id map entry.
  const own = new Set<string>();
  for (const service of input.ratecard.services) {
    own.add(`service:${service.id}`);
    for (const m of service.mappings) own.add(`mapping:${m.id}`);
    for (const t of service.thresholds) own.add(`threshold:${t.id}`);
    for (const field of service.fields) {
      own.add(`field:${field.id}`);
      for (const m of field.mappings) own.add(`mapping:${m.id}`);
      for (const t of field.thresholds) own.add(`threshold:${t.id}`);
    }
  }
  const ratecardIdOf = (kind: string, id: string) =>
    reverse.get(`${kind}:${id}`) ?? (own.has(`${kind}:${id}`) ? id : null);

  for (const d of input.duplicates ?? []) {
    const path = `${d.parent}/${d.kind === "mapping" ? "mappings" : "thresholds"}/${d.key ?? "(service)"}`;
    for (const dropped of d.dropped) {
      differences.push({
        kind: "duplicate",
        object_kind: d.kind,
        path,
        ratecard_id: ratecardIdOf(d.kind, d.kept.id),
        target_id: dropped.id,
        field: "cost",
        expected: d.kept.cost,
        actual: dropped.cost,
        against: "ratecard",
        note:
          `CloudKitty holds this rule twice (with ${d.kept.id})` +
          (d.costsDiffer ? " at different prices; it bills with whichever it loads last" : ""),
      });
    }
  }

  const hasRules = input.target.services.length > 0;
  const hasScripts = input.target.scripts.length > 0;
  for (const module of input.target.modules) {
    const inUse = module.id === "hashmap" ? hasRules : module.id === "pyscripts" && hasScripts;
    if (!inUse || module.enabled) continue;
    differences.push({
      kind: "module_disabled",
      object_kind: "module",
      path: `modules/${module.id}`,
      ratecard_id: module.id,
      target_id: module.id,
      field: "enabled",
      expected: true,
      actual: false,
      against: "ratecard",
      note: `the ${module.id} module is disabled while CloudKitty holds its ${module.id === "hashmap" ? "rules" : "scripts"}: they price nothing`,
    });
  }

  if (input.metrics) {
    const metrics = new Map(input.metrics.map((m) => [m.metric_id, new Set(m.metadata)]));
    for (const service of input.target.services) {
      const metadata = metrics.get(service.name);
      if (!metadata) {
        differences.push({
          kind: "unknown_metric",
          object_kind: "service",
          path: service.name,
          ratecard_id: ratecardIdOf("service", service.id),
          target_id: service.id,
          actual: service.name,
          against: "ratecard",
          note: `no metric of the target is named ${JSON.stringify(service.name)}: its rules price nothing`,
        });
        continue;
      }
      for (const field of service.fields) {
        if (metadata.has(field.name)) continue;
        differences.push({
          kind: "unknown_metadata",
          object_kind: "field",
          path: `${service.name}/${field.name}`,
          ratecard_id: ratecardIdOf("field", field.id),
          target_id: field.id,
          actual: field.name,
          against: "ratecard",
          note: `metric ${service.name} keeps no metadata ${JSON.stringify(field.name)} (it keeps ${[...metadata].join(", ") || "none"})`,
        });
      }
    }
  }

  const counts = Object.fromEntries(DRIFT_KINDS.map((k) => [k, 0])) as Record<DriftKind, number>;
  for (const d of differences) counts[d.kind]++;
  return { differences, counts, doublePrecision };
}
