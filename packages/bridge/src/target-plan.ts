import { decimalsEqual } from "@ratecard/cloudkitty";
import type {
  RuleSetDocument,
  RuleSetMapping,
  RuleSetObjectKind,
  RuleSetThreshold,
} from "@ratecard/ruleset";
import type { DuplicateRule } from "./convert.js";
import { formatMoment, momentMillis } from "./moments.js";

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
  "supersede",
  "frozen",
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
  /** Replace, duplicate, unmanaged, supersede, frozen: why. */
  reason?: string;
}

/**
 * CloudKitty 23+ refuses an end in the past (by its own clock) and takes a moment or two to
 * receive a request: "now" in an end it is sent is the moment of sending plus this much.
 */
export const SUPERSEDE_DELAY_MS = 10_000;

/** The API generation a plan is made for (CloudKitty 23+ has validity dates). */
export type PlanGeneration = "pre-23" | "23+";

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
  /**
   * CloudKitty 23+: mappings and scripts carry validity dates on both sides (the target's converted
   * with `lifecycle`), and a change CloudKitty 23 forbids on a started rule is planned as
   * `supersede`. Default "pre-23".
   */
  generation?: PlanGeneration;
  /** The moment the plan is made for (23+: what has started or ended); default now. */
  now?: Date;
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

function ruleAttributes(r: FlatRule, lifecycle = false): Attributes {
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
    ...(lifecycle
      ? { start: rule.start ?? null, end: rule.end ?? null, description: rule.description ?? null }
      : {}),
  };
}

/** A moment's milliseconds for comparing (microseconds are cut: Ratecard keeps milliseconds). */
const ms = (value: string | number | boolean | null | undefined) =>
  typeof value === "string" ? momentMillis(value) : null;

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

type Pending = Pick<TargetOperation, "kind" | "path" | "ratecard_id" | "target_id"> & {
  before: Attributes;
  after: Attributes;
};

const at = (time: number) => formatMoment(time);

/**
 * One paired CloudKitty 23+ mapping or script (`content`: the attributes that differ besides the
 * lifecycle; `dates`: which of start, end and description differ). CloudKitty 23 lets a rule that
 * has not started change its cost (a script its data), start, end and description, but ignores a
 * new type, value, tenant or group there (a replacement, which soft-deletes the unstarted rule: it
 * never billed); of a started rule only the end may change, once, to a moment still to come. So a
 * started rule that must change is superseded: it ends at T and Ratecard's rule is created from T
 * (no gap, no overlap), T being Ratecard's start when it is later than the apply, else the apply's
 * moment (plus SUPERSEDE_DELAY_MS). The past is CloudKitty's history: a start is compared only
 * while Ratecard's has not come (a CloudKitty rule that follows a superseded one starts later than
 * Ratecard's, which began before the change).
 */
function plan23(
  pending: Pending,
  content: string[],
  dates: ("start" | "end" | "description")[],
  context: { now: number; soon: number; parentMoved: boolean; script?: boolean },
): TargetOperation | null {
  const { before, after } = pending;
  const { now, soon } = context;
  const what = context.script ? "script" : "rule";
  const start = ms(after.start) ?? now;
  const end = ms(after.end);
  const theirStart = ms(before.start) ?? now;
  const theirEnd = ms(before.end);
  const endsNow = end !== null && end <= now;
  const sameScriptName = context.script === true && after.name === before.name;
  // A started rule Ratecard has ended: CloudKitty 23 refuses an end in the past.
  const endAtApply = (): TargetOperation => ({
    op: "update",
    ...pending,
    after: { ...before, end: at(soon) },
    changes: ["end"],
    reason: `ended in Ratecard (${String(after.end)}); CloudKitty 23 refuses an end in the past: it ends at the apply's moment`,
  });
  const follower = (from: number, reason: string): TargetOperation =>
    end !== null && end <= from
      ? {
          op: "frozen",
          ...pending,
          changes: content.length > 0 ? content : ["end"],
          reason: `${reason}; Ratecard's ends before then`,
        }
      : sameScriptName
        ? {
            op: "frozen",
            ...pending,
            changes: content.length > 0 ? content : ["end"],
            reason: `${reason}; a new version needs another name (CloudKitty keeps script names unique)`,
          }
        : {
            op: "create",
            ...pending,
            target_id: null,
            before: null,
            after: { ...after, start: at(Math.max(start, from)) },
            reason: `${reason}: Ratecard's follows it from then`,
          };
  if (theirEnd !== null && theirEnd <= now) {
    // CloudKitty's has ended: history. Ratecard's still has time to run: a new one follows.
    if (endsNow) return null;
    return follower(theirEnd, `its CloudKitty ${what} ended at ${String(before.end)}`);
  }
  const ratecardStarted = start <= now;
  if (theirStart > now) {
    // Not started in CloudKitty: updated in place, or replaced.
    if (endsNow)
      return {
        op: "delete",
        ...pending,
        after: null,
        reason: `ended in Ratecard before it started in CloudKitty (a ${what} that never billed)`,
      };
    const inPlace = context.script ? ["data"] : ["cost"];
    const fixed = content.filter((k) => !inPlace.includes(k));
    const changes = [...content, ...dates.filter((k) => !(k === "start" && ratecardStarted))];
    if (changes.length === 0) return null;
    // Ratecard's has started: CloudKitty's keeps its own start (a PUT cannot set one in the past).
    const wanted: Attributes = ratecardStarted ? { ...after, start: before.start ?? null } : after;
    if (fixed.length > 0)
      return {
        op: "replace",
        ...pending,
        after: wanted,
        changes,
        reason: context.parentMoved
          ? "CloudKitty cannot move a rule to another parent"
          : `CloudKitty 23 updates only the ${context.script ? "data" : "cost"}, start, end and description of a ${what} that has not started`,
      };
    return { op: "update", ...pending, after: wanted, changes };
  }
  // Started in CloudKitty.
  if (content.length > 0) {
    if (theirEnd !== null)
      return follower(
        theirEnd,
        `CloudKitty 23 forbids changing a started ${what} that has an end: it bills as it is until ${String(before.end)}`,
      );
    if (sameScriptName)
      return {
        op: "frozen",
        ...pending,
        changes: content,
        reason:
          "CloudKitty 23 forbids changing a started script, and a new version needs another name " +
          "(CloudKitty keeps script names unique): end this one in Ratecard and add the new version under a new name",
      };
    if (endsNow) return endAtApply();
    const moment = Math.max(start, soon);
    return {
      op: "supersede",
      ...pending,
      after: { ...after, start: at(moment) },
      changes: content,
      reason:
        `CloudKitty 23 forbids changing a started ${what}: it ends at T and Ratecard's starts at T, ` +
        (start > soon
          ? `T being Ratecard's start (${at(start)})`
          : `T being the apply's moment (plus ${SUPERSEDE_DELAY_MS / 1000} s; ${at(moment)} if applied now)`),
    };
  }
  if (!dates.includes("end")) return null;
  if (theirEnd !== null) {
    if (end !== null && end < theirEnd)
      return {
        op: "frozen",
        ...pending,
        changes: ["end"],
        reason: `CloudKitty 23 forbids changing the end of a started ${what} that has one: it bills until ${String(before.end)}`,
      };
    return follower(
      theirEnd,
      `CloudKitty 23 forbids changing the end of a started ${what} that has one (${String(before.end)})`,
    );
  }
  if (endsNow) return endAtApply();
  return {
    op: "update",
    ...pending,
    after: { ...before, end: after.end ?? null },
    changes: ["end"],
  };
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
  const v23 = options.generation === "23+";
  const now = (options.now ?? new Date()).getTime();
  const soon = now + SUPERSEDE_DELAY_MS;
  const ended = (end: string | number | boolean | null | undefined) => {
    const at = ms(end);
    return at !== null && at <= now;
  };
  // CloudKitty 23+ keeps ended rules as its history: never compared, deleted or reported.
  for (const [d, e] of pairs) {
    const kind = d.rule.kind;
    if (e) matched.push({ kind, ratecard_id: d.rule.id, target_id: e.rule.id });
    const path = rulePath(d);
    const lifecycle = v23 && kind === "mapping";
    const after = ruleAttributes(d, lifecycle);
    if (lifecycle && ended(after.end) && (!e || ended(e.rule.end ?? null))) continue;
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
    const before = ruleAttributes(e, lifecycle);
    const content = ["parent", "value", "level", "type", "cost", "tenant_id", "group"];
    const differs = (k: string) => {
      const a = after[k];
      const b = before[k];
      if ((k === "cost" || k === "level") && typeof a === "string" && typeof b === "string")
        return !sameNumber(a, b);
      if (k === "start" || k === "end") return ms(a) !== ms(b);
      return a !== b;
    };
    if (lifecycle) {
      const operation = plan23(
        { kind, path, ratecard_id: d.rule.id, target_id: e.rule.id, before, after },
        content.filter((k) => k in after && differs(k)),
        (["start", "end", "description"] as const).filter(differs),
        { now, soon, parentMoved: d.parent !== e.parent },
      );
      if (operation) push(operation);
      continue;
    }
    const changes = Object.keys(after).filter(differs);
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
  for (const e of extra) {
    if (v23 && e.rule.kind === "mapping" && ended(e.rule.end ?? null)) {
      continue;
    }
    leftover.push(
      onlyInTarget(
        e.rule.kind,
        rulePath(e),
        e.rule.id,
        ruleAttributes(e, v23 && e.rule.kind === "mapping"),
      ),
    );
  }

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
  const scriptAttributes = (x: RuleSetDocument["scripts"][number]): Attributes => ({
    name: x.name,
    data: x.data,
    ...(v23
      ? { start: x.start ?? null, end: x.end ?? null, description: x.description ?? null }
      : {}),
  });
  for (const [d, e] of scripts.pairs) {
    const path = `scripts/${d.name}`;
    if (e) matched.push({ kind: "script", ratecard_id: d.id, target_id: e.id });
    const after = scriptAttributes(d);
    if (v23 && ended(after.end) && (!e || ended(e.end ?? null))) continue;
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
    const before = scriptAttributes(e);
    if (v23) {
      const operation = plan23(
        { kind: "script", path, ratecard_id: d.id, target_id: e.id, before, after },
        (["name", "data"] as const).filter((k) => after[k] !== before[k]),
        (["start", "end", "description"] as const).filter((k) =>
          k === "description" ? after[k] !== before[k] : ms(after[k]) !== ms(before[k]),
        ),
        { now, soon, parentMoved: false, script: true },
      );
      if (operation) push(operation);
      continue;
    }
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
  for (const e of scripts.extra) {
    if (v23 && ended(e.end ?? null)) continue;
    leftover.push(onlyInTarget("script", `scripts/${e.name}`, e.id, scriptAttributes(e)));
  }

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
      plan.counts.module +
      plan.counts.supersede ===
    0
  );
}
