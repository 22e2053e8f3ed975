import {
  canonicalizeRuleSet,
  formatPath,
  type RuleSetDocument,
  type RuleSetIssue,
  type RuleSetMapping,
  type RuleSetThreshold,
  type RuleType,
} from "./document.js";

/*
 * The plan between two rule-set documents: what turns `current` into `desired`. Objects are
 * matched by id. The operations are flat records (an object without its children, with its
 * parent's id), each with a readable path, in an order that can be applied as listed.
 */

export const OBJECT_KINDS = [
  "group",
  "service",
  "field",
  "mapping",
  "threshold",
  "script",
  "module",
] as const;
export type RuleSetObjectKind = (typeof OBJECT_KINDS)[number];

export interface GroupRecord {
  id: string;
  name: string;
}
export interface ServiceRecord {
  id: string;
  name: string;
}
export interface FieldRecord {
  id: string;
  service_id: string;
  name: string;
}
/** Exactly one of service_id and field_id is set: the rule's parent. */
export interface MappingRecord extends RuleLifecycleRecord {
  id: string;
  service_id: string | null;
  field_id: string | null;
  value: string | null;
  type: RuleType;
  cost: string;
  tenant_id: string | null;
  group_id: string | null;
}
/** The lifecycle keys a document states (absent in `after`: a create takes the defaults). */
export interface LifecycleRecord {
  start?: string;
  end?: string | null;
  description?: string | null;
}
export interface RuleLifecycleRecord extends LifecycleRecord {
  name?: string | null;
}
export interface ThresholdRecord extends RuleLifecycleRecord {
  id: string;
  service_id: string | null;
  field_id: string | null;
  level: string;
  type: RuleType;
  cost: string;
  tenant_id: string | null;
  group_id: string | null;
}
export interface ScriptRecord extends LifecycleRecord {
  id: string;
  name: string;
  data: string;
}
export interface ModuleRecord {
  id: string;
  enabled: boolean;
  priority: number;
}

export interface RecordOf {
  group: GroupRecord;
  service: ServiceRecord;
  field: FieldRecord;
  mapping: MappingRecord;
  threshold: ThresholdRecord;
  script: ScriptRecord;
  module: ModuleRecord;
}

export type PlanAction = "create" | "update" | "delete";

interface OperationOf<K extends RuleSetObjectKind> {
  op: PlanAction;
  kind: K;
  id: string;
  /** `services/compute/fields/flavor/mappings/<id>`; names with `/` or `%` are %-escaped. */
  path: string;
  /** The object now (null for a create). */
  before: RecordOf[K] | null;
  /** The object after the plan is applied (null for a delete). */
  after: RecordOf[K] | null;
  /** Update only: the keys whose values change. */
  changes?: string[];
  /**
   * Set on the two halves of a replacement (a delete and a create of the same id), which happens
   * when an object would have to move to another parent.
   */
  reason?: string;
}

export type PlanOperation = { [K in RuleSetObjectKind]: OperationOf<K> }[RuleSetObjectKind];

export interface ActionCounts {
  create: number;
  update: number;
  delete: number;
}

export interface PlanCounts extends ActionCounts {
  byKind: Record<RuleSetObjectKind, ActionCounts>;
}

export interface RuleSetPlan {
  /** The revision of `current`: an apply of this plan is refused once Ratecard's has moved. */
  revision: string;
  operations: PlanOperation[];
  counts: PlanCounts;
  /**
   * What no operation can do, with the desired document's JSON path (its canonical order):
   * rating modules are a fixed set, so an unknown module id is an error; so is an end before the
   * start that the document leaves as Ratecard has it. Apply refuses a plan with errors.
   */
  errors: RuleSetIssue[];
}

// ------------------------------------------------------------------------------- flattening

interface Located<T> {
  record: T;
  path: string;
  /** Position in the document's stable order, for applying in that order. */
  ordinal: number;
  /** Where it is in the (canonical) document, for errors. */
  at: (string | number)[];
}

type Flat = { [K in RuleSetObjectKind]: Map<string, Located<RecordOf[K]>> };

function segment(name: string): string {
  return name.replace(/%/g, "%25").replace(/\//g, "%2F");
}

const LIFECYCLE_KEYS = ["start", "end", "name", "description"] as const;

/** The lifecycle keys the entry states (canonical documents omit absent ones). */
function lifecycleOf(entry: RuleLifecycleRecord, withName = true): RuleLifecycleRecord {
  const out: Record<string, unknown> = {};
  for (const key of LIFECYCLE_KEYS)
    if (entry[key] !== undefined && (withName || key !== "name")) out[key] = entry[key];
  return out;
}

/**
 * A lifecycle key the desired object leaves out keeps the current object's value (as a PUT that
 * leaves it out): filled in, so that `after` is the object as it will be and no change is seen.
 */
function keepLifecycle(current: Flat, desired: Flat): void {
  for (const kind of ["mapping", "threshold", "script"] as const) {
    const now = current[kind] as Map<string, Located<RuleLifecycleRecord>>;
    for (const [id, entry] of desired[kind] as Map<string, Located<RuleLifecycleRecord>>) {
      const before = now.get(id)?.record;
      if (!before) continue;
      const record = entry.record;
      for (const key of LIFECYCLE_KEYS)
        if (record[key] === undefined && before[key] !== undefined)
          (record as Record<string, unknown>)[key] = before[key];
    }
  }
}

function flatten(document: RuleSetDocument): Flat {
  const flat: Flat = {
    group: new Map(),
    service: new Map(),
    field: new Map(),
    mapping: new Map(),
    threshold: new Map(),
    script: new Map(),
    module: new Map(),
  };
  let ordinal = 0;
  const put = <K extends RuleSetObjectKind>(
    kind: K,
    record: RecordOf[K],
    path: string,
    at: (string | number)[] = [],
  ) => {
    (flat[kind] as Map<string, Located<RecordOf[K]>>).set(record.id, {
      record,
      path,
      ordinal: ordinal++,
      at,
    });
  };
  const rules = (
    parent: { service_id: string | null; field_id: string | null },
    mappings: RuleSetMapping[],
    thresholds: RuleSetThreshold[],
    parentPath: string,
    parentAt: (string | number)[],
  ) => {
    for (const [index, m] of mappings.entries()) {
      put(
        "mapping",
        {
          id: m.id,
          ...parent,
          value: m.value,
          type: m.type,
          cost: m.cost,
          tenant_id: m.tenant_id,
          group_id: m.group_id,
          ...lifecycleOf(m),
        },
        `${parentPath}/mappings/${m.id}`,
        [...parentAt, "mappings", index],
      );
    }
    for (const [index, t] of thresholds.entries()) {
      put(
        "threshold",
        {
          id: t.id,
          ...parent,
          level: t.level,
          type: t.type,
          cost: t.cost,
          tenant_id: t.tenant_id,
          group_id: t.group_id,
          ...lifecycleOf(t),
        },
        `${parentPath}/thresholds/${t.id}`,
        [...parentAt, "thresholds", index],
      );
    }
  };

  for (const m of document.modules) {
    put(
      "module",
      { id: m.id, enabled: m.enabled, priority: m.priority },
      `modules/${segment(m.id)}`,
    );
  }
  for (const g of document.groups)
    put("group", { id: g.id, name: g.name }, `groups/${segment(g.name)}`);
  for (const [i, s] of document.services.entries()) {
    const servicePath = `services/${segment(s.name)}`;
    put("service", { id: s.id, name: s.name }, servicePath);
    const serviceAt = ["services", i];
    rules({ service_id: s.id, field_id: null }, s.mappings, s.thresholds, servicePath, serviceAt);
    for (const [j, f] of s.fields.entries()) {
      const fieldPath = `${servicePath}/fields/${segment(f.name)}`;
      put("field", { id: f.id, service_id: s.id, name: f.name }, fieldPath);
      rules({ service_id: null, field_id: f.id }, f.mappings, f.thresholds, fieldPath, [
        ...serviceAt,
        "fields",
        j,
      ]);
    }
  }
  for (const [i, s] of document.scripts.entries()) {
    put(
      "script",
      { id: s.id, name: s.name, data: s.data, ...(lifecycleOf(s, false) as LifecycleRecord) },
      `scripts/${segment(s.name)}`,
      ["scripts", i],
    );
  }
  return flat;
}

/**
 * An end before its start, once the start the document leaves out is Ratecard's (a document with
 * both is refused when read). Canonical moments compare as text.
 */
function periodErrors(wanted: Flat): RuleSetIssue[] {
  const errors: RuleSetIssue[] = [];
  for (const kind of ["mapping", "threshold", "script"] as const) {
    for (const { record, at } of (wanted[kind] as Map<string, Located<LifecycleRecord>>).values()) {
      if (typeof record.end === "string" && record.start !== undefined && record.end < record.start)
        errors.push({
          path: formatPath([...at, "end"]),
          message: `before its start (${record.start}, which the document leaves as it is)`,
        });
    }
  }
  return errors;
}

function changedKeys(before: object, after: object): string[] {
  const a = before as Record<string, unknown>;
  const b = after as Record<string, unknown>;
  return Object.keys(b).filter((key) => key !== "id" && a[key] !== b[key]);
}

// ------------------------------------------------------------------------------------- plan

/** Deletes run first, leaves before their parents; then creates and updates, parents first. */
const DELETE_ORDER: RuleSetObjectKind[] = [
  "script",
  "threshold",
  "mapping",
  "field",
  "service",
  "group",
];
const WRITE_ORDER: RuleSetObjectKind[] = [
  "group",
  "service",
  "field",
  "mapping",
  "threshold",
  "script",
  "module",
];

/**
 * The operations that turn `current` (Ratecard's rule set) into `desired`, matched by id:
 *
 * - an object only in `desired` is created, one only in `current` deleted (a service's deletion
 *   lists its fields' and rules' deletions too, so that every object gone is named);
 * - an object in both that differs is updated in place, with the keys that change (renames
 *   included);
 * - a field that moves to another service, or a rule that moves to another service or field, is a
 *   delete and a create with the same id, both with the reason (Ratecard, like CloudKitty, cannot
 *   move an object to another parent); a re-created field's rules are re-created with it;
 * - rating modules are a fixed set: only updated; one absent from `desired` stays as it is.
 *
 * Order: every delete first (scripts, thresholds, mappings, fields, services, groups), so that a
 * name or rule identity is free before it is used again; then groups, services, fields, mappings,
 * thresholds, scripts and modules, each kind's updates before its creates, in document order.
 * Equal documents give no operation.
 */
export function planRuleSet(current: RuleSetDocument, desired: RuleSetDocument): RuleSetPlan {
  const now = flatten(canonicalizeRuleSet(current));
  const wanted = flatten(canonicalizeRuleSet(desired));
  keepLifecycle(now, wanted);
  const deletes = new Map<RuleSetObjectKind, PlanOperation[]>();
  const updates = new Map<RuleSetObjectKind, (PlanOperation & { ordinal: number })[]>();
  const creates = new Map<RuleSetObjectKind, (PlanOperation & { ordinal: number })[]>();
  const errors: RuleSetIssue[] = [...periodErrors(wanted)];
  const push = <T>(map: Map<RuleSetObjectKind, T[]>, kind: RuleSetObjectKind, item: T) => {
    const list = map.get(kind);
    if (list) list.push(item);
    else map.set(kind, [item]);
  };

  // Why each re-created object is re-created, by kind and id.
  const replaced = new Map<string, string>();
  for (const [id, { record: after }] of wanted.field) {
    const before = now.field.get(id)?.record;
    if (before && before.service_id !== after.service_id) {
      replaced.set(
        `field:${id}`,
        "moved to another service: a field cannot change its service, so it is deleted and created again",
      );
    }
  }
  const ruleReason = (
    before: { service_id: string | null; field_id: string | null },
    after: { service_id: string | null; field_id: string | null },
  ): string | undefined => {
    if (before.service_id !== after.service_id || before.field_id !== after.field_id) {
      return "moved to another parent: a rule cannot change its service or field, so it is deleted and created again";
    }
    if (after.field_id && replaced.has(`field:${after.field_id}`)) {
      return "its field is deleted and created again (moved to another service), and its rules with it";
    }
    return undefined;
  };

  const compare = <K extends RuleSetObjectKind>(kind: K) => {
    const before = now[kind] as Map<string, Located<RecordOf[K]>>;
    const after = wanted[kind] as Map<string, Located<RecordOf[K]>>;
    for (const [id, wantedEntry] of after) {
      const nowEntry = before.get(id);
      if (!nowEntry) {
        if (kind === "module") {
          const index = [...after.keys()].indexOf(id);
          errors.push({
            path: formatPath(["modules", index, "id"]),
            message: `no rating module ${JSON.stringify(id)}: modules are a fixed set (${[...before.keys()].join(", ")})`,
          });
          continue;
        }
        push(creates, kind, {
          op: "create",
          kind,
          id,
          path: wantedEntry.path,
          before: null,
          after: wantedEntry.record,
          ordinal: wantedEntry.ordinal,
        } as PlanOperation & { ordinal: number });
        continue;
      }
      const reason =
        kind === "field"
          ? replaced.get(`field:${id}`)
          : kind === "mapping" || kind === "threshold"
            ? ruleReason(
                nowEntry.record as MappingRecord | ThresholdRecord,
                wantedEntry.record as MappingRecord | ThresholdRecord,
              )
            : undefined;
      if (reason) {
        push(deletes, kind, {
          op: "delete",
          kind,
          id,
          path: nowEntry.path,
          before: nowEntry.record,
          after: null,
          reason,
        } as PlanOperation);
        push(creates, kind, {
          op: "create",
          kind,
          id,
          path: wantedEntry.path,
          before: null,
          after: wantedEntry.record,
          reason,
          ordinal: wantedEntry.ordinal,
        } as PlanOperation & { ordinal: number });
        continue;
      }
      const changes = changedKeys(nowEntry.record, wantedEntry.record);
      if (changes.length > 0) {
        push(updates, kind, {
          op: "update",
          kind,
          id,
          path: wantedEntry.path,
          before: nowEntry.record,
          after: wantedEntry.record,
          changes,
          ordinal: wantedEntry.ordinal,
        } as PlanOperation & { ordinal: number });
      }
    }
    if (kind === "module") return;
    for (const [id, nowEntry] of before) {
      if (after.has(id)) continue;
      push(deletes, kind, {
        op: "delete",
        kind,
        id,
        path: nowEntry.path,
        before: nowEntry.record,
        after: null,
      } as PlanOperation);
    }
  };
  for (const kind of OBJECT_KINDS) compare(kind);

  const operations: PlanOperation[] = [];
  const byPath = (a: PlanOperation, b: PlanOperation) =>
    a.path < b.path ? -1 : a.path > b.path ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
  for (const kind of DELETE_ORDER) operations.push(...(deletes.get(kind) ?? []).sort(byPath));
  const inOrder = (list: (PlanOperation & { ordinal: number })[] | undefined) =>
    (list ?? [])
      .sort((a, b) => a.ordinal - b.ordinal)
      .map(({ ordinal: _, ...operation }) => operation);
  for (const kind of WRITE_ORDER) {
    operations.push(...inOrder(updates.get(kind)), ...inOrder(creates.get(kind)));
  }

  return { revision: current.revision, operations, counts: countOperations(operations), errors };
}

export function countOperations(operations: readonly PlanOperation[]): PlanCounts {
  const zero = (): ActionCounts => ({ create: 0, update: 0, delete: 0 });
  const counts: PlanCounts = {
    ...zero(),
    byKind: Object.fromEntries(OBJECT_KINDS.map((kind) => [kind, zero()])) as Record<
      RuleSetObjectKind,
      ActionCounts
    >,
  };
  for (const operation of operations) {
    counts[operation.op]++;
    counts.byKind[operation.kind][operation.op]++;
  }
  return counts;
}
