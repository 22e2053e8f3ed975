import { decimalsEqual } from "@ratecard/cloudkitty";
import type {
  RuleSetDocument,
  RuleSetMapping,
  RuleSetObjectKind,
  RuleSetThreshold,
} from "@ratecard/ruleset";
import type { DuplicateRule } from "./convert.js";

/*
 * What CloudKitty would need to hold Ratecard's rule set: Ratecard's document against the
 * target's (converted) one. Read only: nothing here talks to CloudKitty. Objects are matched
 * through the target's id map first (CloudKitty generates its own ids, so after an apply the two
 * sides' ids differ), then by the same id (after an import both sides carry CloudKitty's ids),
 * else by natural key (service name; service + field name; group name; a rule's parent, value or
 * level, tenant and group). `matched` gives every pairing, so the caller can rebuild the id map
 * where an entry is missing or stale.
 */

export const TARGET_PLAN_OPS = [
  "create",
  "update",
  "replace",
  "delete",
  "unmanaged",
  "duplicate",
  "module",
] as const;
export type TargetPlanOp = (typeof TARGET_PLAN_OPS)[number];

type Attributes = Record<string, string | number | boolean | null>;

export interface TargetOperation {
  op: TargetPlanOp;
  kind: RuleSetObjectKind;
  /** Readable place by names: "compute/flavor_name/mappings/m1.small". */
  path: string;
  /** Ratecard's id (null when the object exists only in CloudKitty). */
  ratecard_id: string | null;
  /** CloudKitty's id (null for a create). */
  target_id: string | null;
  /** CloudKitty's object now (null for a create). */
  before: Attributes | null;
  /** What CloudKitty would hold (null for a delete, unmanaged or duplicate). */
  after: Attributes | null;
  /** Update and module: the attributes that change. */
  changes?: string[];
  /** Replace, duplicate, unmanaged: why. */
  reason?: string;
}

/** A Ratecard object and the CloudKitty object it was paired with. */
export interface TargetMatch {
  kind: "group" | "service" | "field" | "mapping" | "threshold" | "script";
  ratecard_id: string;
  target_id: string;
}

export interface TargetPlan {
  operations: TargetOperation[];
  /** Every pairing of a Ratecard object with a CloudKitty one (changed or not). */
  matched: TargetMatch[];
  counts: Record<TargetPlanOp, number>;
  byKind: Record<RuleSetObjectKind, Record<TargetPlanOp, number>>;
  /** Whether costs and levels were compared at double precision (a CloudKitty on SQLite). */
  doublePrecision: boolean;
}

export interface TargetPlanOptions {
  /** Whether objects only in CloudKitty are to be deleted (else they are reported unmanaged). */
  prune: boolean;
  /** The conversion report's duplicates (rules CloudKitty holds twice). */
  duplicates?: readonly DuplicateRule[];
  /**
   * Compare costs and levels as doubles: the target stores them as doubles (the conversion
   * reported double artifacts), so exact decimals that a double cannot tell apart are equal there.
   */
  doublePrecision?: boolean;
  /**
   * The target's id map: Ratecard's ids to CloudKitty's, keyed "kind:ratecard_id". Consulted
   * before the same id and the natural key; an entry naming an object CloudKitty no longer has is
   * ignored (stale).
   */
  idMap?: ReadonlyMap<string, string>;
  /** Whether scripts are planned (the target lets apply push them); default true. */
  scripts?: boolean;
  /** Whether module states are planned (the target lets apply push them); default true. */
  modules?: boolean;
}

type Rule = (RuleSetMapping | RuleSetThreshold) & { kind: "mapping" | "threshold" };

interface FlatRule {
  rule: Rule;
  /** Names of the parent: "compute" or "compute/flavor_name". */
  parent: string;
  /** The group's name, or null. */
  group: string | null;
  /** The rule's value (mapping) or level (threshold). */
  key: string | null;
}

interface Flat {
  groups: Map<string, string>;
  services: { id: string; name: string }[];
  fields: { id: string; name: string; service: string }[];
  rules: FlatRule[];
}

function flatten(document: RuleSetDocument): Flat {
  const groups = new Map(document.groups.map((g) => [g.id, g.name]));
  const flat: Flat = { groups, services: [], fields: [], rules: [] };
  const add = (parent: string, mappings: RuleSetMapping[], thresholds: RuleSetThreshold[]) => {
    const groupName = (id: string | null) => (id === null ? null : (groups.get(id) ?? id));
    for (const m of mappings)
      flat.rules.push({
        rule: { ...m, kind: "mapping" },
        parent,
        group: groupName(m.group_id),
        key: m.value,
      });
    for (const t of thresholds)
      flat.rules.push({
        rule: { ...t, kind: "threshold" },
        parent,
        group: groupName(t.group_id),
        key: t.level,
      });
  };
  for (const service of document.services) {
    flat.services.push({ id: service.id, name: service.name });
    add(service.name, service.mappings, service.thresholds);
    for (const field of service.fields) {
      flat.fields.push({ id: field.id, name: field.name, service: service.name });
      add(`${service.name}/${field.name}`, field.mappings, field.thresholds);
    }
  }
  return flat;
}

const emptyCounts = (): Record<TargetPlanOp, number> =>
  Object.fromEntries(TARGET_PLAN_OPS.map((op) => [op, 0])) as Record<TargetPlanOp, number>;

function ruleAttributes(r: FlatRule): Attributes {
  // What CloudKitty 17 holds of a rule (a Ratecard document may carry lifecycle keys besides);
  // the group by name: ids differ between the two sides when matched by natural key.
  const rule = r.rule;
  return {
    parent: r.parent,
    ...("level" in rule ? { level: rule.level } : { value: rule.value }),
    type: rule.type,
    cost: rule.cost,
    tenant_id: rule.tenant_id,
    group: r.group,
  };
}

/**
 * Pairs `desired` with `existing` through the id map, else by the same id, else by natural key;
 * each existing object pairs once.
 */
function pair<D, E>(
  desired: readonly D[],
  existing: readonly E[],
  idOf: (x: D | E) => string,
  keyOfDesired: (x: D) => string,
  keyOfExisting: (x: E) => string,
  mappedIdOf: (x: D) => string | undefined = () => undefined,
): { pairs: [D, E | undefined][]; extra: E[] } {
  const byId = new Map(existing.map((e) => [idOf(e), e]));
  const used = new Set<E>();
  const take = (id: string | undefined) => {
    const found = id === undefined ? undefined : byId.get(id);
    if (!found || used.has(found)) return undefined;
    used.add(found);
    return found;
  };
  const pairs: [D, E | undefined][] = desired.map((d) => [d, take(mappedIdOf(d))]);
  for (const entry of pairs) entry[1] ??= take(idOf(entry[0]));
  const byKey = new Map<string, E[]>();
  for (const e of existing) {
    if (used.has(e)) continue;
    const key = keyOfExisting(e);
    byKey.set(key, [...(byKey.get(key) ?? []), e]);
  }
  for (const entry of pairs) {
    if (entry[1]) continue;
    const candidates = byKey.get(keyOfDesired(entry[0]));
    const match = candidates?.shift();
    if (match) {
      used.add(match);
      entry[1] = match;
    }
  }
  return { pairs, extra: existing.filter((e) => !used.has(e)) };
}

export function planTarget(
  ratecard: RuleSetDocument,
  target: RuleSetDocument,
  options: TargetPlanOptions,
): TargetPlan {
  const doublePrecision = options.doublePrecision ?? false;
  const idMap = options.idMap ?? new Map<string, string>();
  const mapped = (kind: TargetMatch["kind"], ratecardId: string) =>
    idMap.get(`${kind}:${ratecardId}`);
  const matched: TargetMatch[] = [];
  const sameNumber = (a: string, b: string) =>
    doublePrecision ? Number(a) === Number(b) : decimalsEqual(a, b);
  const operations: TargetOperation[] = [];
  const push = (operation: TargetOperation) => operations.push(operation);
  const leftover: TargetOperation[] = [];
  const onlyInTarget = (
    kind: RuleSetObjectKind,
    path: string,
    id: string,
    before: Attributes,
  ): TargetOperation =>
    options.prune
      ? { op: "delete", kind, path, ratecard_id: null, target_id: id, before, after: null }
      : {
          op: "unmanaged",
          kind,
          path,
          ratecard_id: null,
          target_id: id,
          before,
          after: null,
          reason: "exists only in CloudKitty (the target does not prune)",
        };

  // Modules: a fixed set on both sides; only their states can differ.
  const targetModules = new Map(target.modules.map((m) => [m.id, m]));
  for (const module of options.modules === false ? [] : ratecard.modules) {
    const there = targetModules.get(module.id);
    if (!there) continue;
    const changes = (["enabled", "priority"] as const).filter((k) => module[k] !== there[k]);
    if (changes.length === 0) continue;
    push({
      op: "module",
      kind: "module",
      path: `modules/${module.id}`,
      ratecard_id: module.id,
      target_id: there.id,
      before: { enabled: there.enabled, priority: there.priority },
      after: { enabled: module.enabled, priority: module.priority },
      changes,
    });
  }

  const mine = flatten(ratecard);
  const theirs = flatten(target);

  // Named objects: CloudKitty has no update for groups, services or fields, so a rename or a
  // field that moved to another service is a replacement.
  const replaced = new Set<string>();
  const named = <T extends { id: string; name: string }>(
    kind: "group" | "service" | "field",
    desired: readonly T[],
    existing: readonly T[],
    keyOf: (x: T) => string,
    pathOf: (x: T) => string,
    attributes: (x: T) => Attributes,
    canUpdate: boolean,
  ) => {
    const { pairs, extra } = pair(
      desired,
      existing,
      (x) => x.id,
      keyOf,
      keyOf,
      (d) => mapped(kind, d.id),
    );
    for (const [d, e] of pairs) {
      const path = pathOf(d);
      if (e) matched.push({ kind, ratecard_id: d.id, target_id: e.id });
      if (!e) {
        push({
          op: "create",
          kind,
          path,
          ratecard_id: d.id,
          target_id: null,
          before: null,
          after: attributes(d),
        });
        continue;
      }
      const before = attributes(e);
      const after = attributes(d);
      const changes = Object.keys(after).filter((k) => after[k] !== before[k]);
      if (changes.length === 0) continue;
      const movedOrRenamed = keyOf(d) !== keyOf(e);
      if (canUpdate) {
        push({
          op: "update",
          kind,
          path,
          ratecard_id: d.id,
          target_id: e.id,
          before,
          after,
          changes,
        });
      } else {
        if (movedOrRenamed) replaced.add(`${kind}:${pathOf(e)}`);
        push({
          op: "replace",
          kind,
          path,
          ratecard_id: d.id,
          target_id: e.id,
          before,
          after,
          changes,
          reason: `CloudKitty cannot rename a ${kind} or move it to another parent`,
        });
      }
    }
    for (const e of extra) leftover.push(onlyInTarget(kind, pathOf(e), e.id, attributes(e)));
  };

  const groupList = (doc: RuleSetDocument) => doc.groups;
  named(
    "group",
    groupList(ratecard),
    groupList(target),
    (g) => g.name,
    (g) => `groups/${g.name}`,
    (g) => ({ name: g.name }),
    false,
  );
  named(
    "service",
    mine.services,
    theirs.services,
    (s) => s.name,
    (s) => s.name,
    (s) => ({ name: s.name }),
    false,
  );
  named(
    "field",
    mine.fields,
    theirs.fields,
    (f) => `${f.service}/${f.name}`,
    (f) => `${f.service}/${f.name}`,
    (f) => ({ service: f.service, name: f.name }),
    false,
  );

  // Rules.
  const naturalKey = (r: FlatRule) =>
    JSON.stringify([
      r.rule.kind,
      r.parent,
      r.rule.kind === "threshold" && doublePrecision ? String(Number(r.key)) : r.key,
      r.rule.tenant_id,
      r.group,
    ]);
  const rulePath = (r: FlatRule) =>
    `${r.parent}/${r.rule.kind === "mapping" ? "mappings" : "thresholds"}/${r.key ?? "(service)"}`;
  const { pairs, extra } = pair(
    mine.rules,
    theirs.rules,
    (r) => `${r.rule.kind}:${r.rule.id}`,
    naturalKey,
    naturalKey,
    (r) => {
      const id = mapped(r.rule.kind, r.rule.id);
      return id === undefined ? undefined : `${r.rule.kind}:${id}`;
    },
  );
  for (const [d, e] of pairs) {
    const kind = d.rule.kind;
    if (e) matched.push({ kind, ratecard_id: d.rule.id, target_id: e.rule.id });
    const path = rulePath(d);
    const after = ruleAttributes(d);
    if (!e) {
      push({
        op: "create",
        kind,
        path,
        ratecard_id: d.rule.id,
        target_id: null,
        before: null,
        after,
      });
      continue;
    }
    const before = ruleAttributes(e);
    const changes = Object.keys(after).filter((k) => {
      const a = after[k];
      const b = before[k];
      if ((k === "cost" || k === "level") && typeof a === "string" && typeof b === "string")
        return !sameNumber(a, b);
      return a !== b;
    });
    if (changes.length === 0) continue;
    const parentReplaced =
      replaced.has(`service:${e.parent}`) ||
      replaced.has(`field:${e.parent}`) ||
      (e.group !== null && replaced.has(`group:groups/${e.group}`));
    const reason =
      d.parent !== e.parent
        ? "CloudKitty cannot move a rule to another parent"
        : d.group === null && e.group !== null
          ? "CloudKitty cannot take a rule out of a group"
          : parentReplaced
            ? "its parent or group in CloudKitty is replaced"
            : undefined;
    push({
      op: reason ? "replace" : "update",
      kind,
      path,
      ratecard_id: d.rule.id,
      target_id: e.rule.id,
      before,
      after,
      changes,
      ...(reason ? { reason } : {}),
    });
  }
  for (const e of extra)
    leftover.push(onlyInTarget(e.rule.kind, rulePath(e), e.rule.id, ruleAttributes(e)));

  // Scripts: CloudKitty updates a script in place (name and data).
  const planScripts = options.scripts ?? true;
  const scripts = pair(
    planScripts ? ratecard.scripts : [],
    planScripts ? target.scripts : [],
    (s) => s.id,
    (s) => s.name,
    (s) => s.name,
    (s) => mapped("script", s.id),
  );
  for (const [d, e] of scripts.pairs) {
    const path = `scripts/${d.name}`;
    if (e) matched.push({ kind: "script", ratecard_id: d.id, target_id: e.id });
    const after = { name: d.name, data: d.data };
    if (!e) {
      push({
        op: "create",
        kind: "script",
        path,
        ratecard_id: d.id,
        target_id: null,
        before: null,
        after,
      });
      continue;
    }
    const before = { name: e.name, data: e.data };
    const changes = (["name", "data"] as const).filter((k) => after[k] !== before[k]);
    if (changes.length > 0)
      push({
        op: "update",
        kind: "script",
        path,
        ratecard_id: d.id,
        target_id: e.id,
        before,
        after,
        changes,
      });
  }
  for (const e of scripts.extra)
    leftover.push(
      onlyInTarget("script", `scripts/${e.name}`, e.id, { name: e.name, data: e.data }),
    );

  // Deletes last, children before parents (the reverse of creation).
  operations.push(...leftover.reverse());

  for (const d of options.duplicates ?? []) {
    for (const dropped of d.dropped) {
      operations.push({
        op: "duplicate",
        kind: d.kind,
        path: `${d.parent}/${d.kind === "mapping" ? "mappings" : "thresholds"}/${d.key ?? "(service)"}`,
        ratecard_id: null,
        target_id: dropped.id,
        before: {
          type: dropped.type,
          cost: dropped.cost,
          tenant_id: d.tenant_id,
          group_id: d.group_id,
        },
        after: null,
        reason:
          `CloudKitty holds this rule twice (with ${d.kept.id})` +
          (d.costsDiffer ? " at different prices; it bills with whichever it loads last" : ""),
      });
    }
  }

  const counts = emptyCounts();
  const kinds: RuleSetObjectKind[] = [
    "group",
    "service",
    "field",
    "mapping",
    "threshold",
    "script",
    "module",
  ];
  const byKind = Object.fromEntries(kinds.map((k) => [k, emptyCounts()])) as TargetPlan["byKind"];
  for (const operation of operations) {
    counts[operation.op]++;
    byKind[operation.kind][operation.op]++;
  }
  return { operations, matched, counts, byKind, doublePrecision };
}

/** Whether the plan asks CloudKitty for nothing (unmanaged and duplicate objects are reports). */
export function isEmptyTargetPlan(plan: TargetPlan): boolean {
  return (
    plan.counts.create +
      plan.counts.update +
      plan.counts.replace +
      plan.counts.delete +
      plan.counts.module ===
    0
  );
}
